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
  trajerrbench-ascii OUT [COPIES=3000] the same written as Python's `json.dumps` writes by
                                default: every non-ASCII character a `\\uXXXX` escape (~79 MB).

  chat OUT [RECORDS=4000]       RECORDS chat records, one a line: OpenAI `messages` with 3–15
                                `tool_calls` and their `tool` replies, some ShareGPT
                                `conversations`, `resolved` or `reward` as the outcome (~50 MB).
  openai-agents OUT [TRACES=1500] OpenAI Agents SDK exports: per trace a `trace` line, then
                                2–12 generation + function span pairs under one agent span, in
                                end order (the agent span last), some spans with an error; every
                                generation's input the conversation so far (~50 MB).
  smolagents OUT [RUNS=7000]    a smolagents step callback's log: per run a task line, then 2–8
                                CodeAgent action steps (`step_number` from 1, the model's thought
                                and code, a `python_interpreter` call, execution logs or an
                                `AgentExecutionError`), the last the final answer or, one run in
                                eight, an `AgentMaxStepsError` (~50 MB).

  calls-batch OUT [LINES=100000] an OpenAI Batch output file: one request answered a line
                                (`custom_id`, `response.status_code`, `response.body`), some
                                answers tool calls, 3 % failed (a status of 400 or 500, or a
                                `null` response and an `error`), usage on each (~58 MB).
  calls-interleaved OUT [CONVERSATIONS=2000] a proxy's log of model calls (`request`,
                                `response`): conversations of 3–12 calls, each request
                                repeating the conversation so far (tool calls and their
                                replies), the calls of all conversations shuffled together in
                                order within each, half named by `metadata.session_id`, 4 % of
                                calls failed once and retried with the same request (~41 MB).

  swe-doc OUT [COPIES=480]      one SWE-agent `.traj` document: the fixture's `trajectory` and
                                `history` lists repeated COPIES times, `json.dump` (one line,
                                ~49 MB, 5,760 turns): one huge run as one document.
  swe-doc-pretty OUT [COPIES=480] the same, pretty-printed as SWE-agent writes it (indent 2).
  openhands-doc OUT [COPIES=2042] an OpenHands event list: the fixture basic.json's events
                                COPIES times, ids and causes made distinct, indent 2 (~54 MB).
  inspect-doc OUT [COPIES=981]  an Inspect log: the fixture browser.no_events.json's sample
                                COPIES times, ids made distinct, one line (~50 MB).
  tau2-doc OUT [COPIES=997]     a tau2 results file: the fixture's 3 simulations COPIES times,
                                ids made distinct, indent 2 (~61 MB).

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


def suffixed(paths, copies, out, fix, ascii=False):
    """Each file of `paths` parsed, then written `copies` times with `fix(event, copy)` applied
    (compact JSON, one event a line; `ascii`: every non-ASCII character escaped)."""
    parsed = [[json.loads(l) for l in open(p) if l.strip()] for p in paths]
    with open(out, "w") as f:
        for c in range(copies):
            for lines in parsed:
                for ev in lines:
                    f.write(json.dumps(fix(json.loads(json.dumps(ev)), c),
                                       ensure_ascii=ascii, separators=(",", ":")) + "\n")


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


def trajerrbench(out, copies, ascii=False):
    """The repo's TRAJERRBENCH records (one whole trajectory a line, long multilingual
    messages, another adapter than AWTL), task ids made distinct; `ascii`: written with every
    non-ASCII character a `\\u` escape, as `json.dumps` writes by default."""
    def fix(ev, c):
        m = ev.get("metadata")
        if isinstance(m, dict) and isinstance(m.get("task_id"), str):
            m["task_id"] = f"{m['task_id']}-c{c}"
        return ev
    suffixed([os.path.join(ROOT, "tests/fixtures/trajerrbench/records.jsonl")], copies, out, fix,
             ascii)


WORDS = ("alpha beta gamma delta deploy verify patch schema timeout retry flaky refund order "
         "invoice parser config cache token").split()


def chat(out, records):
    """Chat records of this file's own writing (not the fixtures): tool calls, their replies,
    long tool outputs, some ShareGPT records, outcomes as booleans and rewards."""
    rnd = random.Random(11)

    def text(n):
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    with open(out, "w") as f:
        for r in range(records):
            if r % 10 == 9:
                conv = [{"from": "human", "value": text(20)}]
                for _ in range(rnd.randint(2, 8)):
                    conv.append({"from": "gpt", "value": text(rnd.randint(10, 80))})
                    conv.append({"from": "human", "value": text(rnd.randint(5, 30))})
                f.write(json.dumps({"id": f"sg-{r}", "conversations": conv,
                                    "reward": rnd.random()}) + "\n")
                continue
            msgs = [{"role": "system", "content": "You are a coding agent. " + text(15)},
                    {"role": "user", "content": text(30) + ". Do not change the tests."}]
            for c in range(rnd.randint(3, 15)):
                cmd = rnd.choice(["pytest -q", "ls -la src", "git diff", "cat src/app.py",
                                  "sed -i 's/a/b/' src/app.py", "python -m build"])
                msgs.append({"role": "assistant", "content": text(rnd.randint(0, 40)) or None,
                             "tool_calls": [{"id": f"call_{c}", "type": "function",
                                             "function": {"name": "bash", "arguments":
                                                          json.dumps({"command": cmd})}}]})
                body = "\n".join(text(10) for _ in range(rnd.randint(1, 30)))
                if rnd.random() < 0.15:
                    body += "\nTraceback (most recent call last):\nAssertionError: 3 != 4"
                msgs.append({"role": "tool", "tool_call_id": f"call_{c}", "content": body})
            msgs.append({"role": "assistant", "content": "Done: " + text(20)})
            f.write(json.dumps({"instance_id": f"task-{r}", "messages": msgs,
                                "resolved": rnd.random() < 0.4}) + "\n")


def smolagents(out, runs):
    """smolagents memory steps of this file's own writing, one a line, as a step callback
    writes `step.dict()` (succinct: no `model_input_messages`)."""
    rnd = random.Random(17)

    def text(n):
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    def timing(t):
        return {"start_time": t, "end_time": t + 1.5, "duration": 1.5}

    with open(out, "w") as f:
        for r in range(runs):
            f.write(json.dumps({"task": text(25) + "?", "task_images": None}) + "\n")
            steps = rnd.randint(2, 8)
            for n in range(1, steps + 1):
                last = n == steps
                limit = last and r % 8 == 7
                code = f"final_answer({rnd.randint(1, 999)})" if last else \
                    f"result = web_search({json.dumps(text(5))})\nprint(result)"
                failed = not last and rnd.random() < 0.2
                step = {"step_number": n, "timing": timing(100.0 * r + n), "model_input_messages": None,
                        "tool_calls": [] if limit else [{"id": f"call_{n}", "type": "function",
                                                         "function": {"name": "python_interpreter",
                                                                      "arguments": code}}],
                        "error": {"type": "AgentMaxStepsError", "message": "Reached max steps."} if limit
                        else {"type": "AgentExecutionError",
                              "message": f"Code execution failed at line '{code.splitlines()[0]}' due to: "
                                         + text(12)} if failed else None,
                        "model_output_message": None,
                        "model_output": None if limit else f"Thought: {text(rnd.randint(10, 60))}\n<code>\n{code}\n</code>",
                        "code_action": None if limit else code,
                        "observations": None if limit or failed else
                        "Execution logs:\n" + "\n".join(text(12) for _ in range(rnd.randint(1, 12))),
                        "observations_images": None, "action_output": rnd.randint(1, 999) if last else None,
                        "token_usage": {"input_tokens": rnd.randint(500, 9000), "output_tokens": rnd.randint(20, 400),
                                        "total_tokens": 0},
                        "is_final_answer": last and not limit}
                f.write(json.dumps(step) + "\n")


def calls_batch(out, lines):
    """An OpenAI Batch output file of this file's own writing (docs/formats.md, "Model call
    logs"): every line a request of its own."""
    rnd = random.Random(23)

    def text(n):
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    with open(out, "w") as f:
        for i in range(lines):
            line = {"id": f"batch_req_{i:06x}", "custom_id": f"request-{i}"}
            roll = rnd.random()
            if roll < 0.01:
                line.update(response=None, error={"code": "batch_expired",
                                                  "message": "This request could not be executed"})
            elif roll < 0.03:
                status = rnd.choice([400, 500])
                line.update(response={"status_code": status, "request_id": f"req_{i}", "body": {
                    "error": {"message": text(12), "type": "invalid_request_error"}}}, error=None)
            else:
                if rnd.random() < 0.3:
                    message = {"role": "assistant", "content": None, "tool_calls": [
                        {"id": f"call_{i}", "type": "function", "function": {
                            "name": "lookup", "arguments": json.dumps({"query": text(4)})}}]}
                else:
                    message = {"role": "assistant", "content": text(rnd.randint(5, 60))}
                body = {"id": f"chatcmpl-{i}", "object": "chat.completion", "created": 1764000000 + i,
                        "model": "gpt-4o-mini", "choices": [{"index": 0, "message": message,
                                                             "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": rnd.randint(50, 900),
                                  "completion_tokens": rnd.randint(5, 200)}}
                line.update(response={"status_code": 200, "request_id": f"req_{i}", "body": body},
                            error=None)
            f.write(json.dumps(line) + "\n")


def calls_interleaved(out, conversations):
    """A proxy's log of model calls of this file's own writing: each request repeats its
    conversation so far; the calls of many conversations interleaved."""
    rnd = random.Random(29)

    def text(n):
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    queues = []
    for c in range(conversations):
        history = [{"role": "system", "content": "You are a support agent. " + text(25)},
                   {"role": "user", "content": f"Ticket {c}: " + text(30)}]
        calls = []
        n = rnd.randint(3, 12)
        for k in range(n):
            last = k == n - 1
            if last:
                answer = {"role": "assistant", "content": "Resolved: " + text(20)}
            else:
                answer = {"role": "assistant", "content": text(rnd.randint(0, 15)) or None,
                          "tool_calls": [{"id": f"c{c}-{k}", "type": "function", "function": {
                              "name": rnd.choice(["search_orders", "refund", "read_ticket"]),
                              "arguments": json.dumps({"id": rnd.randint(1, 10**6)})}}]}
            request = {"model": "gpt-4o", "messages": list(history)}
            record = {"timestamp": f"2026-12-01T10:{k:02d}:{rnd.randint(0, 59):02d}Z",
                      "request": request}
            if c % 2 == 0:
                record["metadata"] = {"session_id": f"session-{c}"}
            usage = {"prompt_tokens": 40 * len(history), "completion_tokens": rnd.randint(5, 120)}
            if rnd.random() < 0.04:
                failed = dict(record, response={"error": {"message": "Rate limit reached",
                                                           "type": "rate_limit_error"}})
                calls.append(failed)
            record["response"] = {"choices": [{"message": answer}], "usage": usage}
            calls.append(record)
            history.append(answer)
            if not last:
                body = text(rnd.randint(5, 60))
                if rnd.random() < 0.1:
                    body = "Error: order not found"
                history.append({"role": "tool", "tool_call_id": f"c{c}-{k}", "content": body})
        queues.append(calls)
    with open(out, "w") as f:
        heads = [0] * len(queues)
        live = list(range(len(queues)))
        while live:
            j = rnd.randrange(len(live))
            q = live[j]
            f.write(json.dumps(queues[q][heads[q]]) + "\n")
            heads[q] += 1
            if heads[q] == len(queues[q]):
                live[j] = live[-1]
                live.pop()


def openai_agents(out, traces):
    """OpenAI Agents SDK span exports of this file's own writing, in the order a file processor
    writes them (a span when it ends, its agent span last)."""
    rnd = random.Random(13)

    def text(n):
        return " ".join(rnd.choice(WORDS) for _ in range(n))

    def ts(t):
        return f"2025-06-02T10:{t // 60 % 60:02d}:{t % 60:02d}.{rnd.randint(0, 999999):06d}+00:00"

    with open(out, "w") as f:
        for t in range(traces):
            tid = f"trace_{t:032x}"
            f.write(json.dumps({"object": "trace", "id": tid, "workflow_name": "Support",
                                "group_id": f"thread_{t % 97}", "metadata": None}) + "\n")
            agent = f"span_{t}_a"
            convo = [{"role": "system", "content": "You are the support agent. " + text(20)},
                     {"role": "user", "content": text(25)}]
            clock = 0
            for k in range(rnd.randint(2, 12)):
                call = f"call_{t}_{k}"
                name = rnd.choice(["lookup_order", "issue_refund", "search_docs", "send_email"])
                args = json.dumps({"order_id": str(rnd.randint(1000, 9999)), "note": text(5)})
                out_msg = [{"role": "assistant", "content": None, "tool_calls": [
                    {"id": call, "type": "function",
                     "function": {"name": name, "arguments": args}}]}]
                f.write(json.dumps({"object": "trace.span", "id": f"span_{t}_g{k}",
                                    "trace_id": tid, "parent_id": agent,
                                    "started_at": ts(clock), "ended_at": ts(clock + 1),
                                    "span_data": {"type": "generation", "input": list(convo),
                                                  "output": out_msg, "model": "gpt-4.1-mini",
                                                  "usage": {"input_tokens": 200 + 40 * k,
                                                            "output_tokens": 20}},
                                    "error": None}) + "\n")
                failed = rnd.random() < 0.12
                result = "\n".join(text(12) for _ in range(rnd.randint(1, 12)))
                f.write(json.dumps({"object": "trace.span", "id": f"span_{t}_f{k}",
                                    "trace_id": tid, "parent_id": agent,
                                    "started_at": ts(clock + 1), "ended_at": ts(clock + 2),
                                    "span_data": {"type": "function", "name": name,
                                                  "input": args,
                                                  "output": None if failed else result},
                                    "error": {"message": "Error running tool",
                                              "data": {"error": text(8)}} if failed else None})
                        + "\n")
                convo = convo + out_msg + [{"role": "tool", "tool_call_id": call,
                                            "content": result}]
                clock += 3
            f.write(json.dumps({"object": "trace.span", "id": agent, "trace_id": tid,
                                "parent_id": None, "started_at": ts(0), "ended_at": ts(clock),
                                "span_data": {"type": "agent", "name": "Support agent",
                                              "handoffs": [], "tools": ["lookup_order"],
                                              "output_type": "str"},
                                "error": {"message": "Max turns exceeded", "data": None}
                                if rnd.random() < 0.3 else None}) + "\n")


def swe_doc(out, copies, indent=None):
    with open(os.path.join(ROOT, "tests/fixtures/swe_agent/pydicom__pydicom-1458.traj")) as f:
        doc = json.load(f)
    doc["trajectory"] = doc["trajectory"] * copies
    doc["history"] = doc["history"] * copies
    with open(out, "w") as f:
        json.dump(doc, f, indent=indent)


def openhands_doc(out, copies):
    with open(os.path.join(ROOT, "tests/fixtures/openhands/basic.json")) as f:
        events = json.load(f)
    out_events = []
    for c in range(copies):
        for e in events:
            e = dict(e)
            for k in ("id", "cause"):
                if isinstance(e.get(k), int):
                    e[k] = c * 100 + e[k]
            out_events.append(e)
    with open(out, "w") as f:
        json.dump(out_events, f, indent=2)


def many_doc(out, fixture, key, copies, indent=None):
    with open(os.path.join(ROOT, fixture)) as f:
        doc = json.load(f)
    items = []
    for c in range(copies):
        for it in doc[key]:
            it = json.loads(json.dumps(it))
            it["id"] = f"{it.get('id')}-{c}"
            items.append(it)
    doc[key] = items
    with open(out, "w") as f:
        json.dump(doc, f, indent=indent)


if __name__ == "__main__":
    shape, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else None
    {"interleaved": lambda: interleaved(out, n or 10000),
     "one-line": lambda: one_line(out, n or 100000),
     "fixtures": lambda: fixtures(out, n or 2000),
     "claude-code": lambda: claude_code(out, n or 500),
     "codex": lambda: codex(out, n or 500),
     "trajerrbench": lambda: trajerrbench(out, n or 3000),
     "trajerrbench-ascii": lambda: trajerrbench(out, n or 3000, ascii=True),
     "chat": lambda: chat(out, n or 4000),
     "openai-agents": lambda: openai_agents(out, n or 1500),
     "smolagents": lambda: smolagents(out, n or 7000),
     "calls-batch": lambda: calls_batch(out, n or 100000),
     "calls-interleaved": lambda: calls_interleaved(out, n or 2000),
     "swe-doc": lambda: swe_doc(out, n or 480),
     "swe-doc-pretty": lambda: swe_doc(out, n or 480, indent=2),
     "openhands-doc": lambda: openhands_doc(out, n or 2042),
     "inspect-doc": lambda: many_doc(out, "tests/fixtures/inspect/browser.no_events.json",
                                     "samples", n or 981),
     "tau2-doc": lambda: many_doc(out, "tests/fixtures/tau2/airline_3_simulations.json",
                                  "simulations", n or 997, indent=2)}[shape]()
