"""wperf_babeltrace.py — what the wperf commands (wperf, wperf-lami) share
about running babeltrace2 with the wperf plugin: which plugin directory to
give it, and why it failed, in one line. Python standard library only.

Installed in DATADIR/wperf/python; the commands import it from beside
themselves (the build tree) or from there.
"""
import os
import re

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
