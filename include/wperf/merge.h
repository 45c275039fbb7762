/* SPDX-License-Identifier: MIT */
/*
 * wperf/merge.h — merging thread vertices of a wait-for graph into virtual
 * vertices (wperf-method(7) §8 short-lived threads, §9 merging similar threads).
 *
 * A transform of a finished graph (wperf/graph.h), applied before knot
 * finding: thread vertices with the same key become one vertex of kind
 * WPERF_V_VIRTUAL that keeps its members' tids. Edges are re-aggregated
 * (weight, direct time, count and histogram summed), so waits between
 * members become a self-loop; breakdowns are summed. Vertices that are not
 * threads (disks, NICs, interrupts, timers, unknown, virtual) are never
 * merged, and a key shared by a single thread leaves that thread alone.
 */
#ifndef WPERF_MERGE_H
#define WPERF_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "wperf/graph.h"

enum wperf_merge_key {
	WPERF_MERGE_NONE,      /* keep every thread */
	WPERF_MERGE_PROCESS,   /* one vertex per process: "process <comm> (<pid>)" */
	WPERF_MERGE_NAME,      /* by name, trailing digits stripped: "worker-12" -> "worker-*" */
	WPERF_MERGE_STACK,     /* threads of one process whose heaviest wait has the
	                          same call stack: "worker-* @ futex_wait_queue" */
	WPERF_MERGE_POOL,      /* the default: pools of alike threads, "worker-* ×4"
	                          (wperf_vertex_pool_key) */
};

/* A thread is short-lived when the trace saw it forked and ending, and it
 * lived less than this share of the analysed duration (percent). */
#define WPERF_SHORT_LIVED_PERCENT 10

/* A pool's work is what its busiest members do: a same-named thread that
 * ran or wanted a CPU less than 1/this of the busiest one's time did other
 * work, or none (a server's idle helpers named like its workers), and
 * stays out of the pool. Measured: MariaDB names all its threads
 * `mariadbd`; under sysbench its four connection threads ran or waited
 * for a CPU 2.1-2.2 s each in 4 s, its twelve other threads at most 75 ms. */
#define WPERF_POOL_ACTIVITY_RATIO 10

struct wperf_merge_options {
	enum wperf_merge_key key;
	/* Merge the short-lived children of one parent (at least 2) into a
	 * virtual "<parent comm>-children" vertex that waits for the parent
	 * between them (wperf-method(7) §8). Done before the key merge. */
	bool short_lived;
};

/* "none", "process", "name", "stack", "pool" -> 0 and *out; anything else
 * -1. */
int wperf_merge_key_parse(const char *s, enum wperf_merge_key *out);

/* The call stack (index in g->stacks) of the heaviest waiting of vertex
 * v (summed over its out-edges), or UINT32_MAX when it has none. */
uint32_t wperf_vertex_main_stack(const struct wperf_graph *g, uint32_t v);

/* The first frame of a stack that says what the thread waits in, skipping
 * the tracer's and the scheduler's own frames: "futex_wait_queue", or
 * "0x7f12..." when the stack is not symbolised. Writes into buf. */
void wperf_stack_wait_frame(char *buf, size_t len, const struct wperf_stack *s);

/*
 * The pool a thread belongs to (merge key WPERF_MERGE_POOL), as a string
 * the caller frees, or NULL when it is in none (or out of memory: *oom).
 * Alike means the same name, trailing digits stripped (worker-0 and
 * worker-1), and the same role:
 *   - threads of one process that are not its main thread (tid != pid):
 *     the main thread keeps the process's name but runs the program, not
 *     the pool's work;
 *   - or main threads of processes (tid == pid) forked by the same thread
 *     (parent_tid, seen in the trace): pre-forked server workers, fio jobs.
 * Threads with the same key form a pool only while they live side by
 * side (wperf_graph_merge cuts them where none is alive): children run one
 * after another are short-lived children (short_lived), not a pool.
 * Never: threads of unknown process, main threads of unknown parent,
 * kernel threads (children of kthreadd, tid 2), the tracer's threads and
 * processes and the kernel's service threads (wperf/graph.h), which other
 * rules know by their names.
 */
char *wperf_vertex_pool_key(const struct wperf_vertex *v, bool *oom);

/* Does this thread vertex count as short-lived in g? */
bool wperf_vertex_is_short_lived(const struct wperf_graph *g, const struct wperf_vertex *v);

/*
 * Replace *g with its merged graph. When map is not NULL, *map receives an
 * array of the old vertex count: old vertex id -> new vertex id (to carry
 * a focus computed on the threads over); the caller frees it.
 * 0 on success, -1 on allocation failure (g left unchanged, *map NULL).
 */
int wperf_graph_merge(struct wperf_graph *g, const struct wperf_merge_options *o,
		      uint32_t **map);

#endif /* WPERF_MERGE_H */
