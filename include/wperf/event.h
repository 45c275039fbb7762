/* SPDX-License-Identifier: MIT */
/*
 * wperf/event.h — the normalised kernel event.
 *
 * This is the one vocabulary between the trace decoders (LTTng kernel
 * traces, perf CTF, the tracefs recorder) and the analysis. Decoders fill a
 * struct wperf_event from whatever layout they read and hand it to
 * wperf_analysis_feed(); the analysis never sees a babeltrace2 object.
 *
 * Strings are borrowed: they only need to live until wperf_analysis_feed()
 * returns (the analysis copies what it keeps).
 */
#ifndef WPERF_EVENT_H
#define WPERF_EVENT_H

#include <stdbool.h>
#include <stdint.h>

enum wperf_event_type {
	WPERF_EV_SWITCH,          /* sched_switch */
	WPERF_EV_WAKEUP,          /* sched_waking, or sched_wakeup (see .wake.waking) */
	WPERF_EV_WAKEUP_NEW,      /* sched_wakeup_new: a new thread becomes runnable */
	WPERF_EV_FORK,            /* sched_process_fork */
	WPERF_EV_EXEC,            /* sched_process_exec: the thread's comm changes */
	WPERF_EV_EXIT,            /* sched_process_exit */
	WPERF_EV_FREE,            /* sched_process_free: the tid may be reused */
	WPERF_EV_IRQ_ENTRY,       /* irq_handler_entry */
	WPERF_EV_IRQ_EXIT,        /* irq_handler_exit */
	WPERF_EV_SOFTIRQ_ENTRY,   /* irq_softirq_entry / softirq_entry */
	WPERF_EV_SOFTIRQ_EXIT,    /* irq_softirq_exit / softirq_exit */
	WPERF_EV_TIMER_ENTRY,     /* hrtimer_expire_entry / timer_expire_entry */
	WPERF_EV_TIMER_EXIT,      /* hrtimer_expire_exit / timer_expire_exit */
	WPERF_EV_BLOCK_INSERT,    /* block_rq_insert */
	WPERF_EV_BLOCK_ISSUE,     /* block_rq_issue */
	WPERF_EV_BLOCK_COMPLETE,  /* block_rq_complete */
	WPERF_EV_STATEDUMP_PROCESS,      /* lttng_statedump_process_state */
	WPERF_EV_STATEDUMP_BLOCK_DEVICE, /* lttng_statedump_block_device */
	/* User-space annotations (LTTng-UST provider `wperf`, ust-provider/);
	 * the thread is ev.current_tid (the vtid context). */
	WPERF_EV_SPIN_BEGIN,      /* wperf:before_spin(lock) */
	WPERF_EV_SPIN_END,        /* wperf:after_spin(lock): the lock is taken */
	WPERF_EV_FALSE_WAKEUP,    /* wperf:false_wakeup(): the last wakeup did not let it proceed */
	WPERF_EV_PROGRESS,        /* wperf:progress(name): a unit of work is done */
	WPERF_EV_NET_XMIT,        /* net_dev_xmit: a packet handed to a NIC */
	WPERF_EV_NET_RECV,        /* netif_receive_skb / net_if_receive_skb */
	/* The kernel stack of current_tid, recorded right after it switched
	 * out (ftrace's stacktrace trigger on sched_switch, as
	 * source.wperf.tracefs records with stacks="kernel"): the stack of
	 * the wait it just began. Frames in .stack. */
	WPERF_EV_STACK,
	WPERF_EV_SOFTIRQ_RAISE,   /* irq_softirq_raise / softirq_raise: vec becomes pending */
	/* A TCP segment's key seen without a device's packet count:
	 * inet_sock_local_out / net_dev_queue (sent, in the sender's context)
	 * and inet_sock_local_in (received, in the receive softirq). */
	WPERF_EV_TCP_SEND,
	WPERF_EV_TCP_RECV,
	WPERF_EV_TYPE_COUNT
};

/* Interrupt context as perf (and ftrace) mark it in common_flags. */
/*
 * Added to a switch's raw prev_state by a decoder that knows the value is
 * TASK_DEAD, a task's last switch: kernels before 4.14 report the raw
 * task state, and there 64 is TASK_DEAD (from 4.14 it is TASK_PARKED, and
 * the kernel reports death as the X or Z bit). Above any kernel state bit.
 */
#define WPERF_PREV_STATE_DEAD (INT64_C(1) << 40)

#define WPERF_CTX_UNKNOWN  (-1)
#define WPERF_CTX_HARDIRQ  0x08
#define WPERF_CTX_SOFTIRQ  0x10

/* A block request's operation bits that the analysis reads (lttng-modules'
 * RWBS_FLAG_*, which source.wperf.tracefs writes too): a discard (or a
 * secure erase, which sets it as well) frees sectors and moves no data. */
#define WPERF_RWBS_DISCARD (1u << 1)

/* Softirq vectors (include/linux/interrupt.h). */
enum wperf_softirq_vec {
	WPERF_SOFTIRQ_HI = 0,
	WPERF_SOFTIRQ_TIMER = 1,
	WPERF_SOFTIRQ_NET_TX = 2,
	WPERF_SOFTIRQ_NET_RX = 3,
	WPERF_SOFTIRQ_BLOCK = 4,
	WPERF_SOFTIRQ_IRQ_POLL = 5,
	WPERF_SOFTIRQ_TASKLET = 6,
	WPERF_SOFTIRQ_SCHED = 7,
	WPERF_SOFTIRQ_HRTIMER = 8,
	WPERF_SOFTIRQ_RCU = 9,
};

/* lttng_statedump_process_state status values. */
#define WPERF_STATEDUMP_WAIT_CPU 2
#define WPERF_STATEDUMP_WAIT     5
#define WPERF_STATEDUMP_RUN      6

struct wperf_event {
	enum wperf_event_type type;
	int64_t ts;          /* ns from the clock's origin */
	int cpu;             /* CPU the event was recorded on, -1 if unknown */
	int64_t current_tid; /* thread running when recorded (perf_tid, LTTng
	                        tid context), -1 if the trace does not say */
	int64_t current_pid; /* its process (perf_pid, LTTng pid context), or -1 */
	int context_flags;   /* WPERF_CTX_* bits, or WPERF_CTX_UNKNOWN */
	/* The host that recorded it, 0 when the input is one machine's.
	 * The decoder has made its tids, pids and CPUs unique across hosts
	 * (wperf_host_id()); devices and interrupts are the host's own. */
	uint32_t host;
	/* A call stack recorded with the event, innermost frame first (LTTng
	 * callstack-kernel then callstack-user contexts, a perf callchain
	 * without its context markers), or NULL / 0. On SWITCH it is the
	 * stack of prev, where it starts to wait. Borrowed, like strings. */
	const uint64_t *stack;
	uint32_t n_stack;
	union {
		struct {
			int64_t prev_tid, next_tid;
			int64_t prev_state; /* raw kernel value, see analysis/threads.c,
			                       | WPERF_PREV_STATE_DEAD when known */
			const char *prev_comm, *next_comm;
		} sw;
		struct {
			int64_t tid;
			/* WAKEUP_NEW only: a new thread's first name. A plain
			 * wakeup's is not used (switches name running threads),
			 * and decoders leave it NULL rather than read it. */
			const char *comm;
			bool waking; /* true: sched_waking; false: sched_wakeup */
			/* The CPU the woken thread will run on (the
			 * layout's target_cpu), when has_target_cpu. */
			int target_cpu;
			bool has_target_cpu;
		} wake;              /* WAKEUP and WAKEUP_NEW */
		struct {
			int64_t parent_tid, parent_pid, child_tid, child_pid;
			const char *child_comm;
		} fork;
		struct {
			int64_t tid;
			const char *comm; /* may be NULL */
		} task;              /* EXEC (new comm), EXIT, FREE */
		struct {
			int64_t irq;
			const char *name; /* NULL on IRQ_EXIT */
		} irq;
		struct {
			int64_t vec;
		} softirq;           /* SOFTIRQ_ENTRY, SOFTIRQ_EXIT, SOFTIRQ_RAISE */
		struct {
			uint64_t dev;     /* kernel dev_t: major << 20 | minor */
			uint64_t sector;
			uint64_t nr_sector;
			uint64_t bytes;   /* 0 when the layout lacks it: use nr_sector * 512 */
			int64_t tid;      /* issuing thread, -1 when unknown */
			uint32_t rwbs;    /* WPERF_RWBS_* bits (LTTng's RWBS_FLAG_*); 0: unknown */
		} block;
		struct {
			int64_t tid, pid, ppid;
			const char *name;
			int64_t status;   /* WPERF_STATEDUMP_* */
		} statedump;
		struct {
			uint64_t dev;
			const char *name;
		} blockdev;
		struct {
			uint64_t lock;    /* the lock's address in the process */
		} spin;                  /* SPIN_BEGIN, SPIN_END */
		struct {
			const char *name; /* the progress point */
		} progress;
		struct {
			const char *dev;  /* interface name ("eth0", "lo"); NULL on TCP_* */
			uint64_t len;     /* bytes */
			uint64_t skb;     /* the packet's skbaddr, 0 when not recorded */
			/* The TCP header's key (wperf/netmatch.h), when the
			 * event carries one (has_tcp). */
			bool has_tcp;
			uint32_t seq, ack_seq, tcp_flags;
		} net;                   /* NET_XMIT, NET_RECV, TCP_SEND, TCP_RECV */
	} u;
};

#endif /* WPERF_EVENT_H */
