"""wperf_babeltrace.py — what the Python programs of wperf (wperf-py, the
Python half of the wperf command, and wperf-lami) share about running
babeltrace2 with the wperf plugin: which plugin directory to give it, and
why it failed, in one line. Python standard library only. The C command
has its own (tools/wperf/plugin-dir.c, ctf-metadata.c, bt-failure.c),
with the same rules.

Installed in DATADIR/wperf/python; the commands import it from beside
themselves (the build tree) or from there.
"""
import os
import re
import struct

PLUGIN_FILE = "babeltrace-plugin-wperf.so"


class PluginMissing(Exception):
    """No wperf plugin where it was looked for (one line, says what to do)."""


def configured(value):
    """A value meson substituted into a command, or None where it was not
    (the source tree's copy still says "@NAME@"), or is empty."""
    return value if value and not value.startswith("@") else None


def plugin_dir(option, build_dir, system_dir):
    """The directory of the wperf plugin: --plugin-path, $WPERF_PLUGIN_PATH,
    the command's build tree's plugin/, or babeltrace2's system plugin
    directory (where babeltrace2 looks by itself). A directory the user
    named must hold the plugin."""
    named = [d for d in (option, os.environ.get("WPERF_PLUGIN_PATH")) if d]
    candidates = list(named)
    if configured(build_dir):
        candidates.append(os.path.join(build_dir, "plugin"))
    if configured(system_dir):
        candidates.append(system_dir)
    for d in candidates:
        if os.path.isfile(os.path.join(d, PLUGIN_FILE)):
            # babeltrace2 does not load plugins through a symlinked dir.
            return os.path.realpath(d)
        if d in named:
            raise PluginMissing(f"no {PLUGIN_FILE} in {d} (build it with `make build`, "
                                "or give the right --plugin-path)")
    raise PluginMissing("the wperf babeltrace2 plugin is missing: install wperf "
                        "(make install) or pass --plugin-path=BUILD/plugin")


# A packetized CTF 1.8 metadata stream is a sequence of packets, each with
# a 37-byte header: magic 0x75D11D57, uuid[16], checksum, content_size and
# packet_size (in bits, uint32 each), then five one-byte fields. babeltrace2
# 2.0 spins forever on a metadata file cut inside a packet, so the commands
# check every packet before handing a trace over.
METADATA_MAGIC = 0x75D11D57
METADATA_HEADER = 37


def metadata_problem(path):
    """Why the metadata file PATH cannot be read whole, in one line, or
    None. Plain-text metadata (not packetized) is not checked here."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return f"cannot read {path}: {e.strerror}"
    if len(data) < 4:
        return None if not data.strip() else f"{path} is cut short ({len(data)} bytes)"
    for order in "<>":
        if struct.unpack(order + "I", data[:4])[0] == METADATA_MAGIC:
            break
    else:
        return None     # text metadata: babeltrace2 reports its own errors
    offset, n = 0, 0
    while offset < len(data):
        n += 1
        head = data[offset:offset + METADATA_HEADER]
        if len(head) < METADATA_HEADER:
            return (f"{path} is cut short inside the header of metadata packet {n} "
                    f"(at byte {offset} of {len(data)}): the trace was not closed "
                    "properly or not copied whole")
        magic, content_bits, packet_bits = (struct.unpack(order + "I", head[:4])[0],
                                            *struct.unpack(order + "II", head[24:32]))
        if magic != METADATA_MAGIC:
            return (f"{path}: metadata packet {n} (at byte {offset}) has no packet "
                    "magic: the file is damaged")
        size = packet_bits // 8
        if packet_bits % 8 or size < METADATA_HEADER or content_bits > packet_bits:
            return (f"{path}: metadata packet {n} (at byte {offset}) has an impossible "
                    f"size ({packet_bits} bits, content {content_bits} bits): the file "
                    "is damaged")
        if offset + size > len(data):
            return (f"{path} is cut short inside metadata packet {n} (it needs bytes "
                    f"{offset} to {offset + size}, the file has {len(data)}): the trace "
                    "was not closed properly or not copied whole")
        offset += size
    return None


def check_metadata(paths):
    """metadata_problem() of every `metadata` file under the trace paths
    (directories are searched, links not followed): the first problem
    found, or None."""
    for top in paths:
        if os.path.isfile(top):
            found = [top] if os.path.basename(top) == "metadata" else []
        else:
            found = [os.path.join(root, "metadata") for root, _, files in os.walk(top)
                     if "metadata" in files]
        for path in sorted(found):
            problem = metadata_problem(path)
            if problem:
                return problem
    return None


# babeltrace2's CLI writes log lines ("11-22 07:31:43.460 31878 31878 E
# PLUGIN/CTF/META/DECODER func@file.c:257 [comp] message") and then the
# error's causes, newest first ("ERROR:    [actor] (file.c:line)", then
# "CAUSED BY [actor] (file.c:line)", each followed by its message wrapped
# on indented lines).
LOG_LINE = re.compile(r"^\d\d-\d\d [\d:.]+ +\d+ +\d+ ([WEF]) (\S+) \S+ (?:\[[^]]*\] )?(.*)$")
CAUSE = re.compile(r"^(?:ERROR: +|CAUSED BY )\[([^]]*)\]")


def causes(stderr):
    """[(actor, message)] of babeltrace2's error, newest first."""
    found = []
    for line in stderr.splitlines():
        m = CAUSE.match(line)
        if m:
            found.append([m.group(1), ""])
        elif found and line.startswith("  "):
            found[-1][1] = (found[-1][1] + " " + line.strip()).strip()
        elif found and line.strip():
            break   # past the error block
    return [tuple(c) for c in found]


def without_fields(msg):
    """A library message without its trailing `: key=value, ...` dump."""
    return re.sub(r"[:,]\s+[\w-]+=\S.*$", "", msg).strip()


def failure(stderr):
    """Why babeltrace2 failed, in one line: the wperf component's own
    message when one of them stopped (it already names the cause and the
    fix), else the first error babeltrace2 logged (where it began), else
    the oldest cause; with a hint for the failures users meet most."""
    for actor, msg in causes(stderr):
        if "wperf" in actor and msg:
            return msg
    logs = [m for m in map(LOG_LINE.match, stderr.splitlines()) if m]
    errors = [m.group(3) for m in logs if m.group(1) in "EF"
              and not m.group(3).startswith("Command-line error")]
    warnings = [m.group(3) for m in logs if m.group(1) == "W"]
    if any("No trace was found based on input" in w for w in warnings + errors) or \
            any(msg.startswith("No source component") for _, msg in causes(stderr)):
        return ("no CTF trace there (a trace directory has a `metadata` file "
                "beside its stream files; record one with `wperf record`)")
    # The CTF metadata decoder logs as PLUGIN/CTF/META/...
    metadata = [m.group(3) for m in logs if "/META" in m.group(2)]
    if metadata:
        return (f"its CTF metadata cannot be read ({without_fields(metadata[0])}): "
                "not a CTF trace, or a damaged one")
    if errors:
        return without_fields(errors[0])
    found = causes(stderr)
    if found:
        return without_fields(found[-1][1])
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else "babeltrace2 failed without saying why"
