/* SPDX-License-Identifier: MIT */
/*
 * analysis/segments.h — the moves of a thread between states that
 * threads.c makes on scheduler events (segments.c): each closes the
 * segment of the state left and hands it to the segment sink.
 */
#ifndef WPERF_SEGMENTS_H
#define WPERF_SEGMENTS_H

#include "threads.h"

/* Close the segment of the state v is in, at t. waker: for waits
 * (VERTEX_NONE: the `unknown` waker). */
void sched_leave_state(struct sched *s, uint32_t v, int64_t t, uint32_t waker);

/* v is in state st from t on (the state hook may move a wait's start). */
void sched_enter_state(struct sched *s, uint32_t v, enum thread_state st, int64_t t);

/* The thread's observed lifetime begins at t in state st. */
void sched_begin_life(struct sched *s, uint32_t v, enum thread_state st, int64_t t);

/* The thread is gone (exited, or its tid was reused under our eyes). */
void sched_end_life(struct sched *s, uint32_t v, int64_t t);

/* A scheduler event of v contradicted its tracked state. */
void sched_state_mismatch(struct sched *s, uint32_t v);

/* v ran again, or left the CPU, while waiting: its wakeup was lost. */
void sched_lost_wakeup(struct sched *s, uint32_t v);

#endif /* WPERF_SEGMENTS_H */
