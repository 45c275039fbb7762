/* SPDX-License-Identifier: MIT */
/*
 * wperf/kernel-events.h — the kernel events wperf records: the one list.
 *
 * Every recorder and every message that names them is made from it:
 *   - the tracefs source's ftrace → LTTng layouts (plugin/tracefs/tracefs-layout.c:
 *     one layout per tracepoint below, in this order, which is the order of
 *     its event classes);
 *   - the flight recorder's ftrace instance (tools/wperf/flight.c);
 *   - the LTTng sessions `wperf record` and `wperf top` make
 *     (tools/wperf/lttng.c), with the LTTng-only tracepoints too;
 *   - the analysis's hint for a trace without them (analysis/analysis-finish.c).
 * sessions/test-profiles.py reads this file and checks that the session
 * profiles sessions/wperf.lttng and sessions/wperf-snapshot.lttng enable
 * exactly its LTTng events (the three lists below); doc/wperf-sessions.7.md explains each one.
 *
 * Header only (a list macro), so that the analysis library, the plugin and
 * the `wperf` command each build what they need from it at compile time
 * without linking each other.
 */
#ifndef WPERF_KERNEL_EVENTS_H
#define WPERF_KERNEL_EVENTS_H

/* What each event is to the recorders and to the hint. */
enum wperf_kernel_event_flags {
	/* The analysis cannot work without it: a recorder that cannot
	 * enable it fails. */
	WPERF_KEV_REQUIRED = 1 << 0,
	/* ... but an ftrace kernel may lack it (sched_waking came with Linux
	 * 4.3; the analysis then falls back to sched_wakeup). */
	WPERF_KEV_FTRACE_OPTIONAL = 1 << 1,
	/* Named in the analysis's "record them with ..." hint. */
	WPERF_KEV_IN_HINT = 1 << 2,
	/* An ftrace recorder enables it only when the kernel lacks the
	 * tracepoint listed just before it: sched_wakeup repeats what
	 * sched_waking said, later and on the woken thread's CPU, and the
	 * analysis ignores it once it has seen a sched_waking. Recording both
	 * costs the kernel and the recorder a third more events on a server
	 * that mostly switches threads. LTTng sessions still record it (Trace
	 * Compass's and lttng-analyses' readers of that profile; LTTng's
	 * per-event cost is small). */
	WPERF_KEV_FTRACE_FALLBACK = 1 << 3,
};

#define WPERF_KEV_REQUIRED_BY_FTRACE(flags) \
	(((flags) & WPERF_KEV_REQUIRED) && !((flags) & WPERF_KEV_FTRACE_OPTIONAL))
#define WPERF_KEV_REQUIRED_BY_LTTNG(flags) (((flags) & WPERF_KEV_REQUIRED) != 0)

/*
 * The kernel tracepoints, as X(ID, ftrace system, ftrace event, the name
 * the tracefs source writes, lttng-modules 2.13's name, flags). The
 * tracefs source writes lttng-modules' names, except the kernel's
 * netif_receive_skb (lttng-modules: net_if_receive_skb; the decoder reads
 * both). An LTTng name NULL: ftrace only. The scheduler's come first.
 */
#define WPERF_KERNEL_TRACEPOINTS(X) \
	X(SCHED_SWITCH, "sched", "sched_switch", \
	  "sched_switch", "sched_switch", WPERF_KEV_REQUIRED | WPERF_KEV_IN_HINT) \
	X(SCHED_WAKING, "sched", "sched_waking", \
	  "sched_waking", "sched_waking", \
	  WPERF_KEV_REQUIRED | WPERF_KEV_FTRACE_OPTIONAL | WPERF_KEV_IN_HINT) \
	X(SCHED_WAKEUP, "sched", "sched_wakeup", \
	  "sched_wakeup", "sched_wakeup", \
	  WPERF_KEV_REQUIRED | WPERF_KEV_IN_HINT | WPERF_KEV_FTRACE_FALLBACK) \
	X(SCHED_WAKEUP_NEW, "sched", "sched_wakeup_new", \
	  "sched_wakeup_new", "sched_wakeup_new", WPERF_KEV_REQUIRED | WPERF_KEV_IN_HINT) \
	X(SCHED_PROCESS_FORK, "sched", "sched_process_fork", \
	  "sched_process_fork", "sched_process_fork", WPERF_KEV_REQUIRED | WPERF_KEV_IN_HINT) \
	X(TASK_NEWTASK, "task", "task_newtask", \
	  "task_newtask", NULL, 0) \
	X(SCHED_PROCESS_EXEC, "sched", "sched_process_exec", \
	  "sched_process_exec", "sched_process_exec", WPERF_KEV_REQUIRED | WPERF_KEV_IN_HINT) \
	X(SCHED_PROCESS_EXIT, "sched", "sched_process_exit", \
	  "sched_process_exit", "sched_process_exit", WPERF_KEV_REQUIRED | WPERF_KEV_IN_HINT) \
	X(SCHED_PROCESS_FREE, "sched", "sched_process_free", \
	  "sched_process_free", "sched_process_free", WPERF_KEV_REQUIRED | WPERF_KEV_IN_HINT) \
	X(IRQ_HANDLER_ENTRY, "irq", "irq_handler_entry", \
	  "irq_handler_entry", "irq_handler_entry", WPERF_KEV_IN_HINT) \
	X(IRQ_HANDLER_EXIT, "irq", "irq_handler_exit", \
	  "irq_handler_exit", "irq_handler_exit", WPERF_KEV_IN_HINT) \
	X(SOFTIRQ_ENTRY, "irq", "softirq_entry", \
	  "irq_softirq_entry", "irq_softirq_entry", WPERF_KEV_IN_HINT) \
	X(SOFTIRQ_EXIT, "irq", "softirq_exit", \
	  "irq_softirq_exit", "irq_softirq_exit", WPERF_KEV_IN_HINT) \
	X(SOFTIRQ_RAISE, "irq", "softirq_raise", \
	  "irq_softirq_raise", "irq_softirq_raise", 0) \
	X(HRTIMER_EXPIRE_ENTRY, "timer", "hrtimer_expire_entry", \
	  "timer_hrtimer_expire_entry", "timer_hrtimer_expire_entry", WPERF_KEV_IN_HINT) \
	X(HRTIMER_EXPIRE_EXIT, "timer", "hrtimer_expire_exit", \
	  "timer_hrtimer_expire_exit", "timer_hrtimer_expire_exit", WPERF_KEV_IN_HINT) \
	X(TIMER_EXPIRE_ENTRY, "timer", "timer_expire_entry", \
	  "timer_expire_entry", "timer_expire_entry", 0) \
	X(TIMER_EXPIRE_EXIT, "timer", "timer_expire_exit", \
	  "timer_expire_exit", "timer_expire_exit", 0) \
	X(BLOCK_RQ_INSERT, "block", "block_rq_insert", \
	  "block_rq_insert", "block_rq_insert", WPERF_KEV_IN_HINT) \
	X(BLOCK_RQ_ISSUE, "block", "block_rq_issue", \
	  "block_rq_issue", "block_rq_issue", WPERF_KEV_IN_HINT) \
	X(BLOCK_RQ_COMPLETE, "block", "block_rq_complete", \
	  "block_rq_complete", "block_rq_complete", WPERF_KEV_IN_HINT) \
	X(NET_DEV_XMIT, "net", "net_dev_xmit", \
	  "net_dev_xmit", "net_dev_xmit", 0) \
	X(NETIF_RECEIVE_SKB, "net", "netif_receive_skb", \
	  "netif_receive_skb", "net_if_receive_skb", 0)

/*
 * Tracepoints that only LTTng's kernel tracer records, after those above,
 * as X(lttng-modules name, flags). net_dev_queue: lttng-modules (2.9 and
 * later) writes the packet's IP and TCP headers with it, from the sending
 * thread's context, and its TCP key (seq, ack_seq, flags) is what pairs a
 * segment sent on one host with its receive (net_if_receive_skb, which
 * carries the same headers) on another: the sender's edge across hosts and
 * the clock synchronisation of `wperf report TRACE TRACE...`
 * (analysis/netpeer.c, analysis/netmatch.c). ftrace's net_dev_queue has
 * only skbaddr, len and name, nothing to pair by across hosts, so the
 * ftrace recorders leave it out.
 */
#define WPERF_LTTNG_ONLY_TRACEPOINTS(X) \
	X("net_dev_queue", 0)

/*
 * lttng-modules' state dump, recorded after the tracepoints: the threads,
 * processes and disks that exist when the session starts, as X(name,
 * flags). The tracefs source writes its own from /proc
 * (plugin/tracefs/tracefs-statedump.c).
 */
#define WPERF_LTTNG_STATEDUMP_EVENTS(X) \
	X("lttng_statedump_start", 0) \
	X("lttng_statedump_end", 0) \
	X("lttng_statedump_process_state", WPERF_KEV_IN_HINT) \
	X("lttng_statedump_process_pid_ns", 0) \
	X("lttng_statedump_block_device", WPERF_KEV_IN_HINT) \
	X("lttng_statedump_interrupt", 0) \
	X("lttng_statedump_network_interface", 0) \
	X("lttng_statedump_cpu_topology", 0)

#endif
