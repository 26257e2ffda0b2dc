// Trace generators for the end-to-end tests and the benchmark: AWTL JSONL written to a temp
// file (never committed).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every temp file of this process goes under one folder, removed when the process exits: a test
// file's generated traces (hundreds of MB for the growing-file tests) never outlive its run.
let root;
process.on('exit', () => { if (root) rmSync(root, { recursive: true, force: true }); });

/** A new empty folder named from `prefix`, removed with the others when the process exits. */
export async function scratchDir(prefix) {
  root ??= mkdtempSync(join(tmpdir(), 'trajscope-e2e-'));
  return mkdtemp(join(root, prefix));
}

export async function tempFile(name, content) {
  const dir = await scratchDir('file-');
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

/** One AWTL event line. */
export function line(obj) { return JSON.stringify(obj) + '\n'; }

/** A run of `n` steps; `extra(i)` may override step i's fields. Ends with a failed run_end. */
export function steps(n, extra = () => ({})) {
  const out = [];
  out.push(line({ type: 'run_start', run_id: 'run-big', task: 'generated task' }));
  for (let i = 1; i < n - 1; i++) {
    const base = i % 2
      ? { type: 'action', run_id: 'run-big', agent: i % 4 === 1 ? 'coder' : 'tester', tool: 'shell', command: `echo step ${i}` }
      : { type: 'observation', run_id: 'run-big', exit_code: 0, output: `output of step ${i}` };
    out.push(line({ ...base, ...extra(i) }));
  }
  out.push(line({ type: 'run_end', run_id: 'run-big', status: 'failed' }));
  return out.join('');
}

/** Streams what `next()` returns (a string each call, `null` at the end) into a new temp file
 * named `name`; returns its path. */
async function writeTemp(prefix, name, next) {
  const dir = await scratchDir(prefix);
  const path = join(dir, name);
  const ws = createWriteStream(path);
  for (let text = next(); text !== null; text = next()) {
    if (!ws.write(text)) await new Promise((ok) => ws.once('drain', ok));
  }
  await new Promise((ok) => ws.end(ok));
  return path;
}

/** Writes about `mb` megabytes of JSONL (many steps, one run) to a temp file, streaming. */
export async function bigFile(mb, name = 'big.jsonl') {
  const filler = 'x'.repeat(900);
  const target = mb * 1e6;
  let written = 0, i = 0;
  const path = await writeTemp('trajscope-big-', name, () => {
    if (written >= target) return null;
    const chunk = [];
    while (written < target && chunk.length < 2000) {
      const l = line(i % 2
        ? { type: 'action', run_id: `run-${Math.floor(i / 5000)}`, agent: 'coder', tool: 'shell', command: `make test-${i}` }
        : { type: 'observation', run_id: `run-${Math.floor(i / 5000)}`, exit_code: i % 97 === 0 ? 1 : 0, output: `${filler} ${i}` });
      chunk.push(l); written += l.length; i++;
    }
    return chunk.join('');
  });
  return { path, lines: i, bytes: written };
}

/** Writes about `mb` megabytes of many short runs (`run-0`, `run-1`, …, 40 steps each, every
 * one ended by its `run_end`, the last failed) to a temp file: a file whose first run settles
 * in its first slice. */
export async function manyRunsFile(mb, name = 'runs.jsonl') {
  const filler = 'y'.repeat(400);
  const target = mb * 1e6;
  let written = 0, runs = 0, lines = 0;
  const path = await writeTemp('trajscope-runs-', name, () => {
    if (written >= target) return null;
    const id = `run-${runs}`;
    const out = [line({ type: 'run_start', run_id: id, task: `task ${runs}` })];
    for (let i = 0; i < 38; i++) {
      out.push(line(i % 2
        ? { type: 'observation', run_id: id, exit_code: i === 37 ? 1 : 0, output: `${filler} ${i}` }
        : { type: 'action', run_id: id, agent: 'coder', tool: 'shell', command: `make test-${i}` }));
    }
    out.push(line({ type: 'run_end', run_id: id, status: runs % 3 ? 'passed' : 'failed' }));
    const text = out.join('');
    written += text.length; runs++; lines += out.length;
    return text;
  });
  return { path, runs, lines, bytes: written };
}

/** Writes about `mb` megabytes of one run (`run-huge`: its `run_start`, actions and
 * observations, its `run_end` the last line) to a temp file: a file none of whose runs settles
 * before its end. */
export async function hugeRunFile(mb, name = 'huge-run.jsonl') {
  const filler = 'z'.repeat(300);
  const target = mb * 1e6;
  let written = 0, steps = 0, done = false;
  const path = await writeTemp('trajscope-huge-', name, () => {
    if (done) return null;
    const out = [];
    if (steps === 0) out.push(line({ type: 'run_start', run_id: 'run-huge', task: 'one long task' }));
    while (written < target && out.length < 2000) {
      const i = steps + out.length;
      const l = line(i % 2
        ? { type: 'observation', run_id: 'run-huge', exit_code: i % 101 === 0 ? 1 : 0, output: `${filler} ${i}` }
        : { type: 'action', run_id: 'run-huge', agent: 'coder', tool: 'shell', command: `make step-${i}` });
      out.push(l); written += l.length;
    }
    if (written >= target) {
      out.push(line({ type: 'run_end', run_id: 'run-huge', status: 'failed' }));
      done = true;
    }
    steps += out.length;
    return out.join('');
  });
  return { path, steps, bytes: written };
}

/** Writes about `mb` megabytes to a temp file whose first run (`run-0`, 12 steps) ends only
 * after `settledKb` kilobytes of other runs that end first (`run-1`, …): its first slice
 * settles runs, but not the first. */
export async function lateFirstRunFile(mb, settledKb = 600, name = 'late-first.jsonl') {
  const target = mb * 1e6;
  const ev = (id, i) => line(i % 2
    ? { type: 'observation', run_id: id, exit_code: 0, output: `${'w'.repeat(300)} ${i}` }
    : { type: 'action', run_id: id, agent: 'coder', tool: 'shell', command: `make ${i}` });
  const run = (id) => [line({ type: 'run_start', run_id: id, task: `task ${id}` }),
    ...Array.from({ length: 20 }, (_, i) => ev(id, i)), line({ type: 'run_end', run_id: id, status: 'passed' })].join('');
  let written = 0, runs = 1, stage = 0;
  const path = await writeTemp('trajscope-late-', name, () => {
    let text;
    if (stage === 0) {
      text = line({ type: 'run_start', run_id: 'run-0', task: 'late' }) + [0, 1, 2, 3, 4].map((i) => ev('run-0', i)).join('');
      stage = 1;
    } else if (stage === 1 && written >= settledKb * 1000) {
      text = [5, 6, 7, 8, 9].map((i) => ev('run-0', i)).join('') + line({ type: 'run_end', run_id: 'run-0', status: 'failed' });
      stage = 2;
    } else if (written >= target) {
      return null;
    } else {
      text = run(`run-${runs++}`);
    }
    written += text.length;
    return text;
  });
  return { path, runs, bytes: written };
}

/** One attempt at a small task: both share their first steps, then `fixed` repairs the code
 * and passes while the other deletes the tests and fails. */
export function attempt(id, fixed) {
  const ev = (o) => line({ run_id: id, ...o });
  const shared = [
    ev({ type: 'run_start', task: 'Make the failing test in tests/test_math.py pass.' }),
    ev({ type: 'message', role: 'user', content: 'Make the failing test in tests/test_math.py pass.' }),
    ev({ type: 'action', agent: 'coder', tool: 'shell', command: 'pytest -q' }),
    ev({ type: 'observation', exit_code: 1, output: 'FAILED tests/test_math.py::test_add - assert -1 == 3' }),
    ev({ type: 'action', agent: 'coder', tool: 'shell', command: 'cat src/math.py' }),
    ev({ type: 'observation', exit_code: 0, output: 'def add(a, b):\n    return a - b' }),
  ];
  const rest = fixed
    ? [
      ev({ type: 'action', agent: 'coder', tool: 'shell', command: "sed -i 's/a - b/a + b/' src/math.py" }),
      ev({ type: 'observation', exit_code: 0, output: '' }),
      ev({ type: 'action', agent: 'coder', tool: 'shell', command: 'pytest -q' }),
      ev({ type: 'observation', exit_code: 0, output: '1 passed' }),
      ev({ type: 'run_end', status: 'passed' }),
    ]
    : [
      ev({ type: 'message', role: 'assistant', agent: 'coder', content: 'The test is wrong; I will remove it.' }),
      ev({ type: 'action', agent: 'coder', tool: 'shell', command: 'rm tests/test_math.py' }),
      ev({ type: 'observation', exit_code: 0, output: '' }),
      ev({ type: 'action', agent: 'coder', tool: 'shell', command: 'pytest -q' }),
      ev({ type: 'observation', exit_code: 5, output: 'Error: no tests ran' }),
      ev({ type: 'run_end', status: 'failed' }),
    ];
  return [...shared, ...rest].join('');
}
/** Steps both attempts share: run_start, the user's message, two commands and their outputs. */
export const ATTEMPT_SHARED = 6;
