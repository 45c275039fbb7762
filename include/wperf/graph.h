/* SPDX-License-Identifier: MIT */
/*
 * wperf/graph.h — the weighted wait-for graph: vertices (threads and the
 * pseudo-threads they wait on), edges (waits, after cascaded
 * redistribution), per-thread time breakdown and data-quality counters.
 *
 * This is the result of the streaming analysis (wperf/analysis.h) and the
 * input of knot finding (wperf/knots.h) and of the report writers
 * (wperf/report.h). It owns no behaviour beyond construction and release.
 */
#ifndef WPERF_GRAPH_H
#define WPERF_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wperf_vertex_kind {
	WPERF_V_THREAD,
	WPERF_V_DISK,
	WPERF_V_NIC,
	WPERF_V_IRQ,
	WPERF_V_SOFTIRQ,
	WPERF_V_TIMER,
	WPERF_V_UNKNOWN,
	WPERF_V_VIRTUAL,
	WPERF_V_KIND_COUNT
};

/* "thread", "disk", ... as written in reports. */
const char *wperf_vertex_kind_name(enum wperf_vertex_kind kind);

/* A vertex that stands for a cause outside the program: waits on it are
 * kept in breakdowns but it never becomes a knot or a sink (wperf-method(7) §2). */
static inline bool wperf_vertex_kind_is_category(enum wperf_vertex_kind k)
{
	return k == WPERF_V_TIMER || k == WPERF_V_UNKNOWN;
}

/* A device: it waits for the threads that give it work while it is idle,
 * and a knot holding one is never background (wperf-method(7) §5, §7). */
static inline bool wperf_vertex_kind_is_device(enum wperf_vertex_kind k)
{
	return k == WPERF_V_DISK || k == WPERF_V_NIC;
}

/*
 * LTTng-UST runs listener threads inside every traced process, named after
 * the process with "-ust" appended (cut to the kernel's 15 characters).
 * They are the tracer's, not the program's: their waits (for the session
 * daemon, for the program to exit) are the tracer idling, not work anyone
 * holds up. They do not cascade, and a focus on a pid leaves them out.
 */
bool wperf_comm_is_tracer_thread(const char *comm);

/* The names of LTTng's daemons and command-line tool, and of `wperf`
 * (record): lttng-sessiond, lttng-consumerd, lttng-relayd, lttng-runas,
 * lttng, wperf. Every thread of a process with a thread so named is the
 * tracer's (wperf_graph_mark_tracer_threads). */
bool wperf_comm_is_tracer_process(const char *comm);

/*
 * The kernel's service threads whose every wait is for work to arrive:
 * the per-CPU ksoftirqd/N, migration/N, cpuhp/N, idle_inject/N and
 * watchdog/N, and RCU's grace-period and callback threads (rcu_*, rcuc/N,
 * rcuo*). When one wakes, someone gave it work (an exec asking to
 * migrate, a call_rcu()); its wait held nothing up, like an idle disk's,
 * but unlike a disk it never takes part in a cycle, so its waits would
 * only make whoever gave it work a "sink": `migration/0 -> sleep 2.01 s`.
 * Their waits do not cascade and are no dependency
 * (wperf_edge_is_dependency); waits *on* them are. Not kworkers, jbd2 or
 * kswapd: they also wait for disks and locks on others' behalf. (Any
 * thread's wait begun in the kernel's idle state, TASK_IDLE, as a kworker
 * between work items sleeps, is a wait for work too, by state: the edge's
 * idle_ns, analysis/threads.c.)
 */
bool wperf_comm_waits_only_for_work(const char *comm);

struct wperf_vertex {
	/* First, together, what the analysis reads or writes for every
	 * segment (analysis/segments.c, analysis/analysis.c), the comm
	 * every switch compares and the wake latency every switch-in adds
	 * to: a segment then touches one or two cache lines of its vertex,
	 * not three or four. */
	uint32_t id;                 /* index in wperf_graph.vertices */
	enum wperf_vertex_kind kind;
	/* The host it lives on: an index in wperf_graph.hosts (0 with one
	 * host). Threads' tid, pid and parent_tid carry it in their high
	 * bits (wperf_host_id()): wperf_local_id() gives the host's own. */
	uint32_t host;
	char *comm;                  /* threads: last comm (after exec); else NULL */
	/* Threads: observed lifetime and how it was spent, in ns. */
	int64_t last_ts;
	int64_t running_ns, runnable_ns;
	uint64_t waits;                         /* number of waiting segments */
	/* Of the waits on threads, the time the awaited thread was itself
	 * runnable: waiting for a CPU at one remove (analysis/runhist.h). */
	int64_t waited_on_runnable_ns;
	/* Threads: of runnable_ns, the time its CPU sat idle before running
	 * it (a wakeup's latency, as after each I/O completion): no other
	 * thread wanted that CPU, so it is no wait for a CPU (the CPU finding
	 * and runnable shares leave it out; wperf_vertex_cpu_wait_ns). */
	int64_t wake_latency_ns;
	int64_t waiting_ns[WPERF_V_KIND_COUNT]; /* by kind of the waker */
	int64_t tid, pid;            /* threads only (-1 otherwise) */
	/* Threads: of runnable_ns less wake_latency_ns, the time that began
	 * with a wakeup ending a wait on a disk, a NIC or an interrupt (not a
	 * wait for work), while another thread held its CPU: that wait's cost,
	 * gone with the I/O, and no need for more CPUs (wperf-analysis(7),
	 * "The CPUs"), up to WPERF_LOST_TURN_NS per wakeup. The rest began
	 * with a preemption, a timer or a thread's wakeup, or outlasted a
	 * turn. */
	int64_t woken_cpu_wait_ns;
	int64_t first_ts;
	char *name;                  /* "disk:vda", "irq:24:virtio1", "timer", comm for threads */
	int64_t parent_tid;          /* threads: who forked it, when the trace saw the
	                                fork (sched_process_fork); else 0 */
	/* Virtual vertices made by merging threads (wperf/merge.h): the
	 * members' tids, ascending; NULL / 0 otherwise. */
	int64_t *members;
	int64_t *member_pids;        /* the members' pids (-1: unknown), ascending,
	                                one per member (not paired with members[]):
	                                the processes a merged vertex stands for,
	                                e.g. a script's short-lived children;
	                                NULL when not known (hand-built graphs) */
	size_t n_members;
	const char *merged_by;       /* the rule that merged them, static: "pool",
	                                "process", "name", "stack", "children";
	                                NULL otherwise */
	/* Threads: time inside first_ts .. last_ts in no state the trace
	 * showed (its switch-out lost with events: not running, not anything
	 * else either). running + runnable + waiting + unknown = last - first. */
	int64_t unknown_ns;
	/* Virtual vertices: the CPU finding's split of each member's time,
	 * weighed by the work it did (wperf_cpu_weigh), summed over the
	 * members by the merge. 0 for threads (computed from the above). */
	int64_t cpu_weighted_runnable_ns, cpu_weighted_waiting_ns;
	bool unknown_initial_state;  /* first seen mid-trace without statedump/fork */
	bool woken_to_missing_cpu;   /* woken to run on a CPU whose events are missing
	                                (wperf_quality.missing_cpus) */
	/* Threads: this thread's share of the quality counters of the same
	 * names (events the trace lost around it), so a report can say whether
	 * they touch the threads its findings are about. */
	uint64_t state_mismatches, waits_without_wakeup;
	/* Disks and NICs: busy time, bytes issued (disk) or sent (NIC). */
	int64_t busy_ns;
	uint64_t bytes;
	uint64_t capacity_bps;       /* NICs: link speed given by the user, 0 = unknown */
};

/*
 * Several hosts in one graph: a thread of host h > 0 is tid + h << 32 (a
 * Linux tid is below 2^22), so threads of different hosts never share a
 * vertex; tid 0 (the idle thread) and negative ids ("unknown") stay as
 * they are, and so does every id of host 0 (one host analyses as ever).
 */
#define WPERF_HOST_SHIFT 32
#define WPERF_HOSTS_MAX 8
/* CPUs the same way: cpu + host * WPERF_HOST_CPU_STRIDE. */
#define WPERF_HOST_CPU_STRIDE 512

static inline int64_t wperf_host_id(uint32_t host, int64_t id)
{
	return id > 0 && host ? id + ((int64_t)host << WPERF_HOST_SHIFT) : id;
}

static inline int64_t wperf_local_id(int64_t id)
{
	return id > 0 ? id & ((INT64_C(1) << WPERF_HOST_SHIFT) - 1) : id;
}

/* A thread's runnable time while another thread held its CPU: runnable
 * less its wakeup latency on an idle CPU (wake_latency_ns), never below 0.
 * What more CPUs or priority could shorten. */
static inline int64_t wperf_vertex_cpu_wait_ns(const struct wperf_vertex *v)
{
	int64_t q = v->runnable_ns > 0 ? v->runnable_ns : 0;
	int64_t l = v->wake_latency_ns > 0 ? v->wake_latency_ns : 0;

	return l < q ? q - l : 0;
}

/* What blocking on a device can cost a thread in CPU time lost: one
 * turn, the longest scheduling period of Linux's CFS by default (6 ms
 * times 1 + log2 of up to 8 CPUs). Had it not blocked, it would have run
 * until its turn ended and then waited as any preempted thread does: a
 * longer delay after a wakeup is a wait for CPUs, not the wait's cost. */
#define WPERF_LOST_TURN_NS 24000000

/* Of a thread's wait for a CPU another thread held, the part no wait on
 * a device brought about (woken_cpu_wait_ns left out: it counts as that
 * wait's cost): what more CPUs or priority could shorten. */
static inline int64_t wperf_vertex_cpu_need_ns(const struct wperf_vertex *v)
{
	int64_t q = wperf_vertex_cpu_wait_ns(v);
	int64_t k = v->woken_cpu_wait_ns > 0 ? v->woken_cpu_wait_ns : 0;

	return k < q ? q - k : 0;
}

#define WPERF_HIST_BUCKETS 48   /* log2(ns) buckets: bucket b holds [2^b, 2^(b+1)) ns */

/* Call stacks of the waiting side (where the trace has them): LTTng's
 * callstack-kernel/-user contexts, perf callchains, or the kernel stacks
 * source.wperf.tracefs records with stacks="kernel". */
#define WPERF_EDGE_STACKS 3          /* heaviest stacks kept per edge */
#define WPERF_STACK_MAX_FRAMES 64

struct wperf_stack {
	uint64_t *ips;               /* innermost frame first */
	size_t n;
	char **symbols;              /* NULL, or per frame "function+0x1a" / NULL:
	                                set by whoever can symbolise (the plugin) */
};

struct wperf_edge_stack {
	uint32_t stack;              /* index in wperf_graph.stacks */
	uint64_t count;              /* waits with this stack */
	int64_t ns;                  /* their waiting time (direct) */
};

struct wperf_edge {
	uint32_t from, to;           /* vertex ids: "from waits for to" */
	int64_t weight_ns;           /* after cascaded redistribution */
	int64_t direct_ns;           /* the waits' own durations, no cascade */
	/* Of direct_ns, when `to` is a thread: the time `to` itself waited
	 * on a device (a disk, a NIC), directly or down the chain of threads
	 * it waited on, as the cascade walked it. The waiter was held up by
	 * that device through `to` (wperf-analysis(7), Classification). */
	int64_t device_ns;
	/* Of direct_ns, when `to` is a thread: the time `to` was runnable,
	 * waiting for a CPU (analysis/runhist.h; its waiter's share of
	 * wperf_vertex.waited_on_runnable_ns), or a thread it waited on, down
	 * the chain the cascade walked, was. */
	int64_t runnable_ns;
	uint64_t count;              /* number of waits (or I/O requests for disk -> thread) */
	/* Each wait updates the counters above and the three below: they
	 * share the edge's first 64 bytes (analysis/edges.c).
	 *
	 * Runs of consecutive waits on this edge that no wait of the reverse
	 * edge (to waits for from) interrupted: count / turns is how many
	 * times in a row one side waited before the other did. About 1 when
	 * two threads ping-pong on a lock; many when they take turns by
	 * phases (load imbalance, wperf-method(7) §10). */
	uint64_t turns;
	/* Waits that began while `to` was itself waiting (it ended a wait
	 * of its own after this one began): each thread woken by one that
	 * had been queued too, as at a lock handed along a queue of three
	 * or more. About none when `to` worked through the wait (a phase
	 * of load imbalance, a lock passed back and forth between two). */
	uint64_t chained;
	/* Waits ended by a wakeup that came with another wakeup by the same
	 * waker (within 50 us, the waker not waiting between): a group woken
	 * at once, as when a barrier opens or a condition variable is
	 * broadcast. A lock hands over to one waiter at a time. */
	uint64_t grouped;
	uint64_t hist[WPERF_HIST_BUCKETS]; /* log2 histogram of wait lengths */
	uint64_t gap_waits;          /* waits that a gap in the trace cut short: only
	                                their part after the gap is counted here */
	/* Of direct_ns, when `to` is a thread of another program (another
	 * process of another name): the time of the requested waits (the
	 * waiter had woken `to` since `to` last woke it) that `to` spent
	 * running, neither waiting nor runnable. A client's wait on its
	 * server working on its request: the request's service time
	 * (wperf-analysis(7), Classification). */
	int64_t served_ns;
	/* Waits for work: begun in the kernel's idle state (TASK_IDLE, as a
	 * kworker between work items sleeps), or a kworker's sleep in S on
	 * kernels without that state (wperf-analysis(7)). Kept apart like a
	 * disk's idle time: not in weight_ns, direct_ns, count or hist, and
	 * they do not cascade. An edge of such waits only has weight 0. */
	int64_t idle_ns;
	uint64_t idle_count;
	/* The heaviest stacks of the waits, by ns; n_stacks 0 without stacks. */
	struct wperf_edge_stack stacks[WPERF_EDGE_STACKS];
	uint8_t n_stacks;
};

struct wperf_gap {                   /* a hole in what the trace saw */
	int cpu;                     /* -1: unknown or all */
	int64_t begin_ns, end_ns;    /* -1 when the trace does not say */
	uint64_t count;              /* discarded events (0 when unknown) */
	bool packets;                /* discarded packets rather than events */
};

/* A CPU the trace should show and does not (analysis/cpus.h): wakeups
 * named it as where their thread would run, but no event was recorded on
 * it (its stream file deleted or empty). */
struct wperf_missing_cpu {
	int cpu;
	uint64_t wakeups;                /* that targeted it */
};

struct wperf_quality {
	uint64_t events;                 /* normalised events analysed */
	uint32_t cpus;                   /* CPUs whose events the trace holds: no
	                                    more than cpus x the duration can run */
	uint64_t discarded_events;
	uint64_t discarded_packets;
	struct wperf_gap *gaps;
	size_t n_gaps;
	int64_t gap_ns;                  /* analysed time inside a gap (on any CPU) */
	struct wperf_missing_cpu *missing_cpus;
	size_t n_missing_cpus;
	uint64_t waits_cut_by_gaps;      /* their part up to the gap's end went to `trace-gap` */
	uint64_t runnable_cut_by_gaps;   /* runnable segments over a gap: the same */
	uint64_t events_out_of_order;    /* earlier than an event fed before them: taken
	                                    as happening at that event's time */
	uint64_t unmatched_wakeups;      /* wakeups of threads that were not waiting */
	uint64_t unknown_initial_threads;
	uint64_t waits_without_wakeup;   /* a waiting thread switched in with no wakeup seen */
	uint64_t waits_open_at_end;      /* waits whose end the trace did not show */
	uint64_t cascades_truncated;     /* waits whose cascade reached past the
	                                    per-thread history kept (less weight) */
	uint64_t unmatched_block_completions;
	uint64_t state_mismatches;       /* scheduler events contradicting the tracked state */
	uint64_t untraced_interrupt_wakeups; /* woken from interrupt context the trace does not show */
	uint64_t switches;               /* sched_switch events */
	uint64_t switches_from_idle;     /* of them, leaving a CPU's idle task (prev_tid 0):
	                                    none in a recording that follows some threads
	                                    only (perf record without -a) */
	uint64_t false_wakeups_merged;   /* wperf:false_wakeup merged into the next wait */
	uint64_t false_wakeups_unmerged; /* declared too late (after a long run) or with no wakeup */
	bool has_waking;                 /* sched_waking seen (else sched_wakeup used) */
	bool has_timer_events;           /* hrtimer/timer expiries recorded: a timer
	                                    that fires while a thread runs is `timer` */
	bool has_irq_context;            /* events say their interrupt context (perf's
	                                    common_flags): a wakeup in an interrupt the
	                                    trace lacks is `untraced-interrupt` */
	bool has_idle_state;             /* a thread switched out in the kernel's idle
	                                    state (TASK_IDLE, 'I'): its waits for work are
	                                    known by state, not guessed by name */
};

/* A progress point (wperf:progress): units of work done, as in Coz. */
struct wperf_progress_point {
	char *name;
	uint64_t count;
};

/*
 * A thread's time as the HTML report's timeline draws it
 * (analysis/timeline.c, doc/wperf-report.7.md "The timeline"): spans in
 * time order, each with the time spent in each state inside it and the
 * vertex waited for most there.
 *
 * Exact (width_ns 0): each span is one state, as the segments were, the
 * neighbours in the same state (waiting for the same vertex) joined. A
 * thread that changes state more than WPERF_TIMELINE_SPANS times is
 * folded (width_ns > 0): its spans become equal time buckets of width_ns
 * from the first span's start, the width doubling as time goes on so
 * that at most WPERF_TIMELINE_SPANS buckets cover its life. A thread
 * therefore never holds more than WPERF_TIMELINE_SPANS spans, however
 * long the trace. A merged vertex's buckets sum its threads' times (more
 * than the bucket's width when they overlap).
 */
enum wperf_span_state {
	WPERF_SPAN_RUNNING,
	WPERF_SPAN_RUNNABLE,
	WPERF_SPAN_WAITING,
	WPERF_SPAN_STATES
};

#define WPERF_TIMELINE_SPANS 128

struct wperf_span {
	int64_t start_ns, end_ns;
	int64_t ns[WPERF_SPAN_STATES];   /* time in each state inside the span */
	uint32_t target;                 /* the vertex waited for most (folded: the
	                                    heaviest met), UINT32_MAX: none */
	int64_t target_ns;               /* the waiting for it counted there */
};

struct wperf_timeline {
	struct wperf_span *spans;
	uint32_t n, cap;
	int64_t width_ns;                /* 0: exact; else folded into buckets */
};

/* Add [start, end) in `state` (waiting: for `target`). 0, or -1 when out
 * of memory (then the timeline is left as it was). */
int wperf_timeline_add(struct wperf_timeline *t, enum wperf_span_state state, int64_t start,
		       int64_t end, uint32_t target);

/* Add every span of src into dst (folding dst): a merged vertex's
 * timeline from its threads'. map (may be NULL) renames the targets:
 * map[old id] is the new one. 0, or -1 when out of memory. */
int wperf_timeline_absorb(struct wperf_timeline *dst, const struct wperf_timeline *src,
			  const uint32_t *map, size_t n_map);

/* The state that took most of a span's time (the first of equals), or
 * WPERF_SPAN_STATES when it holds no time at all. */
enum wperf_span_state wperf_span_dominant(const struct wperf_span *s);

void wperf_timeline_fini(struct wperf_timeline *t);

/* A host's clock as the analysis put it on the reference host's. */
struct wperf_host_clock {
	uint32_t host;          /* whose clock (index in wperf_graph.hosts) */
	char *reference;        /* the host whose time base it was put on */
	double alpha;           /* its clock's rate against the reference's */
	int64_t anchor_ns;      /* a time of the reference's, inside the matches */
	double offset_ns;       /* its time minus the reference's at anchor_ns */
	double accuracy_ns;     /* how far any transform the matches allow is from it */
	char *via;              /* the hosts between, "B,C", when placed through others;
				 * NULL: synchronised with the reference directly */
};

struct wperf_graph {
	int64_t begin_ns, end_ns;        /* analysed time range */
	struct wperf_vertex *vertices;
	size_t n_vertices;
	struct wperf_edge *edges;        /* sorted by (from, to) */
	size_t n_edges;
	struct wperf_progress_point *progress; /* by name */
	size_t n_progress;
	struct wperf_stack *stacks;      /* those the edges name */
	size_t n_stacks;
	struct wperf_quality quality;
	/* By vertex id (n_vertices of them): each thread's timeline; NULL
	 * when none was kept (a graph read back or built by hand). */
	struct wperf_timeline *timelines;
	/* The hosts, by wperf_vertex.host: each trace's `hostname` (owned);
	 * NULL / 0 when the input is one host's (labels then name none). */
	char **hosts;
	size_t n_hosts;
	/* The hosts whose clocks were put on the first's time base (the
	 * transform from matched TCP segments): what the report states. */
	struct wperf_host_clock *host_clocks;
	size_t n_host_clocks;
};

void wperf_graph_fini(struct wperf_graph *g);

/* Name the hosts of a graph of several (names[i] for host i, copied);
 * with fewer than two, nothing changes. 0, or -1 when out of memory. */
int wperf_graph_set_hosts(struct wperf_graph *g, const char *const *names, size_t n);

/* The name of v's host when the graph has several, else NULL. */
const char *wperf_vertex_host_name(const struct wperf_graph *g, const struct wperf_vertex *v);

/* Index of the first edge from v (edges are sorted by (from, to)), or
 * n_edges when v waits for nothing. */
size_t wperf_graph_first_edge_from(const struct wperf_graph *g, uint32_t v);

/* end_ns - begin_ns, the analysed duration; 0 when the range is empty,
 * reversed or too wide for int64 (a corrupt trace): shares of it and
 * "less than one CPU's worth of it" are then not defined. */
int64_t wperf_graph_duration(const struct wperf_graph *g);

/*
 * The time a vertex's waits are a part of (doc/wperf-report.7.md,
 * "Weights"): for a thread or a merged vertex, what the trace accounted
 * for (running + runnable + waiting, its members' summed); for any other
 * vertex (a disk or NIC waiting for work, an interrupt), the analysed
 * duration. A vertex's own waiting (the direct_ns of its edges, summed)
 * is at most this.
 */
int64_t wperf_vertex_time(const struct wperf_graph *g, uint32_t v);

/* Time in [begin, end] inside at least one gap of q (the union over CPUs;
 * gaps without times count for nothing), or -1 when out of memory. */
int64_t wperf_gap_coverage(const struct wperf_quality *q, int64_t begin, int64_t end);

/* The edge from -> to, or NULL. */
const struct wperf_edge *wperf_graph_find_edge(const struct wperf_graph *g, uint32_t from,
					       uint32_t to);

/*
 * May the waits of this edge be timer expiries charged to the thread the
 * timer interrupted? In a trace without timer expiry events
 * (quality.has_timer_events false: no hrtimer_expire / timer_expire), a
 * timer that fires while a thread runs wakes its sleeper from that
 * thread's context, which rule 4 makes the waker ("iscsid waits for dd
 * 1.00 s"), unless events carry their interrupt context
 * (quality.has_irq_context: perf's common_flags). Yes for an edge from a thread (or merged vertex) to another
 * when the waiter also waited on `untraced-interrupt` (it is woken by an
 * interrupt the trace does not show, on idle CPUs: on a busy one the same
 * wakeup names the thread it hit). wperf-analysis(7), "Untraced timers".
 */
bool wperf_edge_may_be_timer(const struct wperf_graph *g, const struct wperf_edge *e);
/* How many of the graph's edges wperf_edge_may_be_timer() marks, in time
 * linear in the edges. */
size_t wperf_graph_count_may_be_timer(const struct wperf_graph *g);

/* Marks, in `tracer` (one flag per vertex id), the tracer's own threads:
 * LTTng-UST's listeners (wperf_comm_is_tracer_thread) and every thread of
 * LTTng's daemons and command-line tool, and of `wperf` (record): the
 * processes with a thread named lttng-sessiond, lttng-consumerd,
 * lttng-relayd, lttng-runas, lttng or wperf (their other threads rename
 * themselves: "Timer", "UST application"), and every thread so named
 * where the trace does not say its process.
 * Threads and merged vertices of one process. What they wait for, and who
 * waits for them, is the recording, not the traced system's work.
 * -1 when out of memory (tracer unchanged), else 0. */
int wperf_graph_mark_tracer_threads(const struct wperf_graph *g, bool *tracer);

/* Marks, in `marked` (one flag per vertex id), every thread that a marked
 * thread forked, directly or not, as far as the trace saw the forks
 * (parent_tid): a command's children, their threads, their children. A
 * thread's parent is the thread of that tid that began last before it.
 * -1 when out of memory (marked unchanged), else 0. */
int wperf_graph_mark_forked(const struct wperf_graph *g, bool *marked);

#endif /* WPERF_GRAPH_H */
