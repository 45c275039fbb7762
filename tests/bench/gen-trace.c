/* SPDX-License-Identifier: MIT */
/*
 * gen-trace.c — write synthetic kernel traces for the benchmark: CTF 1.8,
 * the lttng-modules 2.13 layout (the one plugin/common/decode.c reads from real
 * LTTng traces: compact event headers, cpu_id in the packet context, one
 * stream file per CPU, 1 MiB packets).
 *
 * Writing the packets directly is what makes 10 million events cheap to
 * produce (a few seconds; bt2's Python bindings would take many minutes).
 *
 *   gen-trace mix      DIR EVENTS [--long-waiter]   threads ping-ponging on 4 CPUs
 *   gen-trace chain    DIR EVENTS [N]               N threads (64), each waits on the next
 *   gen-trace fanin    DIR EVENTS [N]               N clients (1000) wait on one server
 *
 * --long-waiter: one more thread sleeps from the first event to the last
 * (the cascade's memory worst case: it pins the prune horizon).
 * The trace is deterministic (fixed seed). It prints the event count.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_CPUS 8
#define PACKET_SIZE (1u << 20)
#define PACKET_HEADER 84 /* packet.header 32 + packet.context 52 */

enum { EV_SWITCH, EV_WAKING, EV_WAKEUP, EV_IRQ_ENTRY, EV_IRQ_EXIT };

enum { TASK_RUNNING = 0, TASK_INTERRUPTIBLE = 1 };

struct stream {
	FILE *f;
	uint8_t buf[PACKET_SIZE];
	size_t len;
	uint64_t ts_begin, last_ts, seq;
	bool open;
};

static struct stream streams[MAX_CPUS];
static int n_cpus;
static uint64_t n_events, t_now = 1000000;
static const char *out_dir;

static void die(const char *what)
{
	fprintf(stderr, "gen-trace: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void put(struct stream *s, const void *p, size_t n)
{
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void put_u32(struct stream *s, uint32_t v) { put(s, &v, 4); }
static void put_u64(struct stream *s, uint64_t v) { put(s, &v, 8); }

/* Header and context are written when the packet is closed (they hold its
 * end time and size). */
static void close_packet(int cpu)
{
	struct stream *s = &streams[cpu];
	static const uint8_t uuid[16] = { 0x3f, 0xab, 0x5f, 0x02, 0x6e, 0xc6, 0xd0, 0x4d,
					  0x82, 0x5a, 0x45, 0x3e, 0x62, 0x81, 0x5b, 0x8a };
	size_t content = s->len;

	if (!s->open)
		return;
	s->len = 0;
	put_u32(s, 0xC1FC1FC1);
	put(s, uuid, 16);
	put_u32(s, 0);                  /* stream_id */
	put_u64(s, (uint64_t)cpu);      /* stream_instance_id */
	put_u64(s, s->ts_begin);
	put_u64(s, s->last_ts);
	put_u64(s, (uint64_t)content * 8);
	put_u64(s, (uint64_t)PACKET_SIZE * 8);
	put_u64(s, s->seq++);
	put_u64(s, 0);                  /* events_discarded */
	put_u32(s, (uint32_t)cpu);
	memset(s->buf + content, 0, PACKET_SIZE - content);
	if (fwrite(s->buf, PACKET_SIZE, 1, s->f) != 1)
		die("write");
	s->open = false;
}

/* Room for an event of `payload` bytes at time t, opening packets as needed. */
static struct stream *begin_event(int cpu, uint32_t id, uint64_t t, size_t payload)
{
	struct stream *s = &streams[cpu];

	if (s->open && s->len + 13 + payload > PACKET_SIZE)
		close_packet(cpu);
	if (!s->open) {
		s->open = true;
		s->len = PACKET_HEADER;
		s->ts_begin = s->last_ts ? s->last_ts : t;
		s->last_ts = s->ts_begin;
	}
	/* Compact header: 5-bit id, 27 low bits of the time; babeltrace2
	 * rebuilds the time from the previous one, so a gap of 2^27 ns or
	 * more needs the extended header (id 31, full 64-bit time). */
	if (t - s->last_ts < (1u << 27)) {
		put_u32(s, id | (uint32_t)(t & ((1u << 27) - 1)) << 5);
	} else {
		uint8_t ext = 31;

		put(s, &ext, 1);
		put_u32(s, id);
		put_u64(s, t);
	}
	s->last_ts = t;
	n_events++;
	return s;
}

static void put_comm(struct stream *s, int64_t tid)
{
	char comm[16] = { 0 };

	if (tid == 0)
		snprintf(comm, sizeof comm, "swapper");
	else
		snprintf(comm, sizeof comm, "gen-%" PRId64, tid);
	put(s, comm, 16);
}

static void ev_switch(int cpu, int64_t prev, int64_t prev_state, int64_t next)
{
	struct stream *s = begin_event(cpu, EV_SWITCH, t_now, 56);
	int32_t prio = 20;

	put_comm(s, prev);
	put_u32(s, (uint32_t)prev);
	put(s, &prio, 4);
	put_u64(s, (uint64_t)prev_state);
	put_comm(s, next);
	put_u32(s, (uint32_t)next);
	put(s, &prio, 4);
}

/* sched_waking on the waker's CPU, sched_wakeup on the target's. */
static void ev_wake(int cpu, int64_t tid, int target)
{
	for (int k = 0; k < 2; k++) {
		int on = k == 0 ? cpu : target;
		struct stream *s = begin_event(on, k == 0 ? EV_WAKING : EV_WAKEUP, t_now, 28);
		int32_t prio = 20, tcpu = target;

		put_comm(s, tid);
		put_u32(s, (uint32_t)tid);
		put(s, &prio, 4);
		put(s, &tcpu, 4);
	}
}

static void ev_irq(int cpu, bool entry)
{
	struct stream *s = begin_event(cpu, entry ? EV_IRQ_ENTRY : EV_IRQ_EXIT, t_now,
				       entry ? 12 : 8);
	int32_t irq = 24, ret = 1;

	put(s, &irq, 4);
	if (entry)
		put(s, "virtio0", 8);
	else
		put(s, &ret, 4);
}

static void write_metadata(void)
{
	static const char *const fields_wake =
		"\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _comm[16];\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _tid;\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prio;\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _target_cpu;\n";
	char path[4096];
	FILE *f;

	snprintf(path, sizeof path, "%s/metadata", out_dir);
	f = fopen(path, "w");
	if (!f)
		die(path);
	fprintf(f,
		"/* CTF 1.8 */\n\n"
		"typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		"typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		"typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; } := unsigned long;\n"
		"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n"
		"typealias integer { size = 27; align = 1; signed = false; } := uint27_t;\n\n"
		"trace {\n\tmajor = 1;\n\tminor = 8;\n"
		"\tuuid = \"3fab5f02-6ec6-d04d-825a-453e62815b8a\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t  uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n"
		"env {\n\thostname = \"wperf-bench\";\n\tdomain = \"kernel\";\n"
		"\tsysname = \"Linux\";\n\tkernel_release = \"6.1.0\";\n"
		"\ttracer_name = \"lttng-modules\";\n\ttracer_major = 2;\n"
		"\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n};\n\n"
		"clock {\n\tname = \"monotonic\";\n"
		"\tuuid = \"22bd9f4d-54fd-45f8-a72f-9d69169a5654\";\n"
		"\tdescription = \"Monotonic Clock\";\n\tfreq = 1000000000;\n\toffset = 0;\n};\n\n"
		"typealias integer { size = 27; align = 1; signed = false; map = clock.monotonic.value; } := uint27_clock_monotonic_t;\n"
		"typealias integer { size = 64; align = 8; signed = false; map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n"
		"struct packet_context {\n\tuint64_clock_monotonic_t timestamp_begin;\n"
		"\tuint64_clock_monotonic_t timestamp_end;\n\tuint64_t content_size;\n"
		"\tuint64_t packet_size;\n\tuint64_t packet_seq_num;\n"
		"\tunsigned long events_discarded;\n\tuint32_t cpu_id;\n};\n\n"
		"struct event_header_compact {\n"
		"\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
		"\tvariant <id> {\n\t\tstruct { uint27_clock_monotonic_t timestamp; } compact;\n"
		"\t\tstruct { uint32_t id; uint64_clock_monotonic_t timestamp; } extended;\n"
		"\t} v;\n} align(8);\n\n"
		"stream {\n\tid = 0;\n\tevent.header := struct event_header_compact;\n"
		"\tpacket.context := struct packet_context;\n};\n\n");
	fprintf(f,
		"event {\n\tname = \"sched_switch\";\n\tid = %d;\n\tstream_id = 0;\n\tfields := struct {\n"
		"\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _prev_comm[16];\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prev_tid;\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _prev_prio;\n"
		"\t\tinteger { size = 64; align = 8; signed = 1; encoding = none; base = 10; } _prev_state;\n"
		"\t\tinteger { size = 8; align = 8; signed = 0; encoding = UTF8; base = 10; } _next_comm[16];\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _next_tid;\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _next_prio;\n"
		"\t};\n};\n\n", EV_SWITCH);
	fprintf(f, "event {\n\tname = \"sched_waking\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n%s\t};\n};\n\n", EV_WAKING, fields_wake);
	fprintf(f, "event {\n\tname = \"sched_wakeup\";\n\tid = %d;\n\tstream_id = 0;\n"
		"\tfields := struct {\n%s\t};\n};\n\n", EV_WAKEUP, fields_wake);
	fprintf(f,
		"event {\n\tname = \"irq_handler_entry\";\n\tid = %d;\n\tstream_id = 0;\n\tfields := struct {\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _irq;\n"
		"\t\tstring _name;\n\t};\n};\n\n", EV_IRQ_ENTRY);
	fprintf(f,
		"event {\n\tname = \"irq_handler_exit\";\n\tid = %d;\n\tstream_id = 0;\n\tfields := struct {\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _irq;\n"
		"\t\tinteger { size = 32; align = 8; signed = 1; encoding = none; base = 10; } _ret;\n"
		"\t};\n};\n\n", EV_IRQ_EXIT);
	if (fclose(f) != 0)
		die(path);
}

static void open_streams(int cpus)
{
	char path[4096];

	n_cpus = cpus;
	if (mkdir(out_dir, 0755) < 0 && errno != EEXIST)
		die(out_dir);
	for (int c = 0; c < cpus; c++) {
		snprintf(path, sizeof path, "%s/chan_%d", out_dir, c);
		streams[c].f = fopen(path, "w");
		if (!streams[c].f)
			die(path);
	}
	write_metadata();
}

static void close_streams(void)
{
	for (int c = 0; c < n_cpus; c++) {
		close_packet(c);
		if (fclose(streams[c].f) != 0)
			die("close");
	}
}

/* xorshift64: a fixed sequence, so every run writes the same trace. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static uint32_t rnd(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

static void tick(uint32_t min_ns, uint32_t spread_ns)
{
	t_now += min_ns + rnd(spread_ns);
}

/* ---- a tiny scheduler: per-CPU FIFO run queues ---- */

#define MAX_THREADS 4096

struct rq {
	int64_t q[MAX_THREADS];
	size_t head, n;
};

static struct rq rqs[MAX_CPUS];
static int64_t current[MAX_CPUS];

static void rq_push(int cpu, int64_t tid)
{
	struct rq *r = &rqs[cpu];

	r->q[(r->head + r->n++) % MAX_THREADS] = tid;
}

static int64_t rq_pop(int cpu)
{
	struct rq *r = &rqs[cpu];
	int64_t tid;

	if (r->n == 0)
		return 0;
	tid = r->q[r->head];
	r->head = (r->head + 1) % MAX_THREADS;
	r->n--;
	return tid;
}

/* The running thread on cpu leaves it (sleeping or preempted). */
static void leave(int cpu, int64_t state)
{
	int64_t prev = current[cpu], next = rq_pop(cpu);

	if (state == TASK_RUNNING && prev)
		rq_push(cpu, prev);
	if (next == prev)
		return;
	ev_switch(cpu, prev, state, next);
	current[cpu] = next;
}

/* ---- mix: pairs of threads ping-ponging, interrupts waking the rest ---- */

#define MIX_THREADS 256
#define FIRST_TID 1000

static void gen_mix(uint64_t target, bool long_waiter)
{
	static bool waiting[MIX_THREADS];
	static int64_t waiters[MIX_THREADS];
	static size_t pos[MIX_THREADS];
	size_t n_waiting = 0;
	const int64_t sleeper = 999;

	open_streams(4);
	if (long_waiter) {
		ev_switch(0, 0, TASK_RUNNING, sleeper);
		tick(1000, 1);
		ev_switch(0, sleeper, TASK_INTERRUPTIBLE, 0);
	}
	for (int i = 0; i < MIX_THREADS; i++)
		rq_push(i % 4, FIRST_TID + i);
	while (n_events < target) {
		int cpu = (int)rnd(4);
		int64_t cur = current[cpu];

		tick(500, 4500);
		if (cur == 0) {
			if (rqs[cpu].n) {
				leave(cpu, TASK_RUNNING);
			} else if (n_waiting && rnd(4) == 0) {
				/* A device interrupt wakes a random sleeper. */
				size_t k = rnd((uint32_t)n_waiting);
				int64_t tid = waiters[k];
				int i = (int)(tid - FIRST_TID);

				waiting[i] = false;
				waiters[k] = waiters[--n_waiting];
				pos[waiters[k] - FIRST_TID] = k;
				ev_irq(cpu, true);
				ev_wake(cpu, tid, i % 4);
				ev_irq(cpu, false);
				rq_push(i % 4, tid);
			}
			continue;
		}
		uint32_t r = rnd(100);
		int me = (int)(cur - FIRST_TID), partner = me ^ 1;

		if (r < 50) {
			/* Hand over to the partner and wait for it. */
			if (waiting[partner]) {
				waiting[partner] = false;
				waiters[pos[partner]] = waiters[--n_waiting];
				pos[waiters[pos[partner]] - FIRST_TID] = pos[partner];
				ev_wake(cpu, FIRST_TID + partner, partner % 4);
				rq_push(partner % 4, FIRST_TID + partner);
			}
			waiting[me] = true;
			pos[me] = n_waiting;
			waiters[n_waiting++] = cur;
			leave(cpu, TASK_INTERRUPTIBLE);
		} else if (r < 60 && rqs[cpu].n) {
			leave(cpu, TASK_RUNNING);
		}
	}
	if (long_waiter) {
		/* Whoever runs on CPU 0 (or an interrupt) ends the long sleep. */
		tick(1000, 1);
		if (current[0] == 0)
			ev_irq(0, true);
		ev_wake(0, sleeper, 1);
		if (current[0] == 0)
			ev_irq(0, false);
	}
	close_streams();
}

/* ---- chain: T0 asks T1, which asks T2, ... and the answers come back ---- */

static void gen_chain(uint64_t target, int n)
{
	const int64_t base = 2000;

	open_streams(1);
	current[0] = base;
	ev_switch(0, 0, TASK_RUNNING, base);
	while (n_events < target) {
		for (int i = 0; i + 1 < n; i++) {       /* requests go down */
			tick(1000, 2000);
			ev_wake(0, base + i + 1, 0);
			ev_switch(0, base + i, TASK_INTERRUPTIBLE, base + i + 1);
		}
		for (int i = n - 1; i > 0; i--) {       /* answers come back */
			tick(1000, 2000);
			ev_wake(0, base + i - 1, 0);
			ev_switch(0, base + i, TASK_INTERRUPTIBLE, base + i - 1);
		}
		tick(5000, 5000);                       /* T0 thinks */
	}
	close_streams();
}

/* ---- fanin: n clients queue requests on one server, which waits on a
 * backend thread for each ---- */

static void gen_fanin(uint64_t target, int n)
{
	const int64_t server = 3000, backend = 3001, client0 = 4000;
	static int64_t queue[MAX_THREADS];
	size_t q_head = 0, q_n = 0;
	bool server_idle = false;

	if (n > MAX_THREADS - 8) {
		fprintf(stderr, "gen-trace: at most %d clients\n", MAX_THREADS - 8);
		exit(2);
	}
	open_streams(1);
	for (int i = 0; i < n; i++)
		rq_push(0, client0 + i);
	rq_push(0, server);
	while (n_events < target) {
		int64_t cur = current[0];

		tick(500, 1500);
		if (cur == 0) {
			leave(0, TASK_RUNNING);
		} else if (cur == backend) {
			ev_wake(0, server, 0);
			rq_push(0, server);
			leave(0, TASK_INTERRUPTIBLE);
		} else if (cur == server) {
			if (q_n == 0) {
				server_idle = true;
				leave(0, TASK_INTERRUPTIBLE);
				continue;
			}
			/* Answer the oldest request, then ask the backend for the next. */
			int64_t c = queue[q_head];

			q_head = (q_head + 1) % MAX_THREADS;
			q_n--;
			ev_wake(0, c, 0);
			rq_push(0, c);
			tick(200, 200);
			ev_wake(0, backend, 0);
			rq_push(0, backend);
			leave(0, TASK_INTERRUPTIBLE);
		} else {
			/* A client sends a request and waits for its answer. */
			queue[(q_head + q_n++) % MAX_THREADS] = cur;
			if (server_idle) {
				server_idle = false;
				ev_wake(0, server, 0);
				rq_push(0, server);
			}
			leave(0, TASK_INTERRUPTIBLE);
		}
	}
	close_streams();
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: gen-trace mix|chain|fanin DIR EVENTS [N|--long-waiter]\n");
		return 2;
	}
	out_dir = argv[2];
	uint64_t target = strtoull(argv[3], NULL, 10);

	if (strcmp(argv[1], "mix") == 0)
		gen_mix(target, argc > 4 && strcmp(argv[4], "--long-waiter") == 0);
	else if (strcmp(argv[1], "chain") == 0)
		gen_chain(target, argc > 4 ? atoi(argv[4]) : 64);
	else if (strcmp(argv[1], "fanin") == 0)
		gen_fanin(target, argc > 4 ? atoi(argv[4]) : 1000);
	else {
		fprintf(stderr, "gen-trace: unknown kind '%s' (mix, chain or fanin)\n", argv[1]);
		return 2;
	}
	printf("%" PRIu64 "\n", n_events);
	return 0;
}
