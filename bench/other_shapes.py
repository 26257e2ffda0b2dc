#!/usr/bin/env python3
"""AWTL files of the benchmark shapes made without the repo's generator (crates/bench-web), so
the figures do not depend on one writer's habits:

  interleaved OUT [RUNS=10000]  RUNS short runs (~35 steps) whose lines are interleaved across
                                64 concurrently open runs, keys in another order, camelCase
                                and snake_case, `content` instead of `text`, no writer_seq.
  one-line OUT [RUNS=100000]    RUNS runs of one action line each (the run-lookup shape).
  fixtures OUT [COPIES=2000]    the real AWTL fixtures under tests/fixtures/awtl/ concatenated
                                COPIES times, each copy's run ids made distinct.
  claude-code OUT [COPIES=500]  the real Claude Code transcripts under tests/fixtures/claude_code/
                                concatenated COPIES times, each copy's session and agent ids made
                                distinct (one session each: ~2,500 trajectories, ~44 MB).
  codex OUT [COPIES=500]        the real Codex rollouts under tests/fixtures/codex/ (plain ones)
                                concatenated COPIES times, each copy's session id made distinct;
                                the Codex reader takes a file as one session, so this is one
                                long run (~21,000 steps, ~50 MB).
  trajerrbench OUT [COPIES=3000] the TRAJERRBENCH records of tests/fixtures/trajerrbench/
                                COPIES times, task ids made distinct: another adapter, one whole
                                run of long multilingual messages a line (~9,000 runs, ~52 MB).

Deterministic (fixed seed). Usage: python3 bench/other_shapes.py SHAPE OUT [N]
"""
import glob
import json
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def interleaved(out, runs):
    rnd = random.Random(7)
    words = "alpha beta gamma delta deploy verify patch schema timeout retry flaky".split()

    def text(n):
        return " ".join(rnd.choice(words) for _ in range(n))

    def run_lines(r):
        camel = r % 3 == 0
        rid = "runId" if camel else "run_id"
        yield {rid: f"py-{r}", "type": "run_start", "task": text(12)}
        for s in range(rnd.randint(30, 40)):
            k = rnd.random()
            if k < 0.35:
                yield {"tool": "bash", "type": "action", rid: f"py-{r}",
                       "command": rnd.choice(["pytest -q", "make", "ls -la", "git status"]),
                       "args": {"cwd": "/repo", "env": {"CI": "1"}}}
            elif k < 0.7:
                code = 1 if rnd.random() < 0.1 else 0
                body = "\n".join(text(8) for _ in range(rnd.randint(1, 8)))
                if code:
                    body += "\nTraceback (most recent call last):\nAssertionError: 3 != 4"
                yield {"exitCode" if camel else "exit_code": code, "type": "observation",
                       rid: f"py-{r}", "output": body}
            elif k < 0.9:
                yield {"type": "message", rid: f"py-{r}", "role": "assistant",
                       "content": text(rnd.randint(5, 60))}
            else:
                yield {"type": "judge_result", rid: f"py-{r}", "judge_name": "tests",
                       "status": rnd.choice(["passed", "failed"]), "reason": text(10)}
        yield {"type": "run_end", rid: f"py-{r}", "status": rnd.choice(["passed", "failed"])}

    with open(out, "w") as f:
        open_runs, next_run = [], 0
        while open_runs or next_run < runs:
            while len(open_runs) < 64 and next_run < runs:
                open_runs.append(run_lines(next_run))
                next_run += 1
            g = rnd.choice(open_runs)
            try:
                f.write(json.dumps(next(g), ensure_ascii=False) + "\n")
            except StopIteration:
                open_runs.remove(g)


def one_line(out, runs):
    with open(out, "w") as f:
        for i in range(runs):
            f.write('{"type":"action","run_id":"r%d","command":"ls"}\n' % i)


def fixtures(out, copies):
    files = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/awtl/*.awtl.jsonl")))
    parsed = [[json.loads(l) for l in open(p) if l.strip()] for p in files]
    with open(out, "w") as f:
        for c in range(copies):
            for lines in parsed:
                for ev in lines:
                    ev = dict(ev)
                    for k in ("run_id", "runId"):
                        if k in ev:
                            ev[k] = f"{ev[k]}-c{c}"
                    f.write(json.dumps(ev, ensure_ascii=False, separators=(",", ":")) + "\n")


def suffixed(paths, copies, out, fix):
    """Each file of `paths` parsed, then written `copies` times with `fix(event, copy)` applied
    (compact JSON, one event a line)."""
    parsed = [[json.loads(l) for l in open(p) if l.strip()] for p in paths]
    with open(out, "w") as f:
        for c in range(copies):
            for lines in parsed:
                for ev in lines:
                    f.write(json.dumps(fix(json.loads(json.dumps(ev)), c),
                                       ensure_ascii=False, separators=(",", ":")) + "\n")


def claude_code(out, copies):
    def fix(ev, c):
        for k in ("sessionId", "agentId"):
            if isinstance(ev.get(k), str):
                ev[k] = f"{ev[k]}-c{c}"
        return ev
    paths = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/claude_code/*.jsonl")))
    suffixed(paths, copies, out, fix)


def codex(out, copies):
    def fix(ev, c):
        p = ev.get("payload")
        if ev.get("type") == "session_meta" and isinstance(p, dict) and isinstance(p.get("id"), str):
            p["id"] = f"{p['id']}-c{c}"
        return ev
    paths = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/codex/*.jsonl")))
    suffixed(paths, copies, out, fix)


def trajerrbench(out, copies):
    """The repo's TRAJERRBENCH records (one whole trajectory a line, long multilingual
    messages, another adapter than AWTL), task ids made distinct."""
    def fix(ev, c):
        m = ev.get("metadata")
        if isinstance(m, dict) and isinstance(m.get("task_id"), str):
            m["task_id"] = f"{m['task_id']}-c{c}"
        return ev
    suffixed([os.path.join(ROOT, "tests/fixtures/trajerrbench/records.jsonl")], copies, out, fix)


if __name__ == "__main__":
    shape, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else None
    {"interleaved": lambda: interleaved(out, n or 10000),
     "one-line": lambda: one_line(out, n or 100000),
     "fixtures": lambda: fixtures(out, n or 2000),
     "claude-code": lambda: claude_code(out, n or 500),
     "codex": lambda: codex(out, n or 500),
     "trajerrbench": lambda: trajerrbench(out, n or 3000)}[shape]()
