// A file none of whose runs settles before its end (one huge run) is readable after its first
// slice: `ready` comes with the run's steps read so far, said to be still read, while the
// worker reads the rest; once read, the whole run replaces them and the reviewer's place stays.
// The same for formats without an end marker: a Codex rollout (one session) and Claude Code
// sessions are shown as read so far, and an OpenAI Agents SDK export's first trace; a
// TRAJERRBENCH file's records, one a line, as read; a JSON list of chat records (a dataset's
// `json.dump`, one line) element by element; a SWE-agent document's steps as its list is read.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, whileReading, FIXTURES } from './harness.mjs';
import { hugeRunFile, lateFirstRunFile, tempFile } from './gen.mjs';

let srv, browser, huge, late, codex, records, agents, chatList;

/** A repo fixture repeated to about `mb` megabytes, in a temp file. */
async function repeated(fixture, mb, name) {
  const one = readFileSync(join(FIXTURES, fixture), 'utf8');
  const copies = Math.ceil((mb * 1e6) / one.length);
  return { copies, path: await tempFile(name, one.repeat(copies)) };
}

before(async () => {
  srv = await serveDist();
  browser = await launch();
  huge = await hugeRunFile(40);
  late = await lateFirstRunFile(30);
  codex = await repeated('codex/rollout-trimmed.jsonl', 40, 'rollout.jsonl');
  records = await repeated('trajerrbench/records.jsonl', 40, 'records.jsonl');
  // The Agents SDK fixture's trace again and again, each copy's trace and span ids its own.
  const trace = readFileSync(join(FIXTURES, 'openai_agents/refund_handoff.jsonl'), 'utf8');
  const copies = Math.ceil(40e6 / trace.length);
  const parts = [];
  for (let i = 0; i < copies; i++) {
    parts.push(trace.replaceAll('trace_4f1c2a9be07d4c5a8e1b2c3d4e5f6a7b', `trace_c${i}`)
      .replace(/"span_([a-z]+[0-9]+)"/g, `"span_c${i}_$1"`));
  }
  agents = { copies, path: await tempFile('agents.jsonl', parts.join('')) };
  // The chat fixture's two records (no ids: named by their place in the list), repeated to
  // about 40 MB, as `JSON.stringify` writes a list: one line.
  const two = JSON.parse(readFileSync(join(FIXTURES, 'chat/glaive_toolcall_demo.json'), 'utf8'));
  const listCopies = Math.ceil(40e6 / JSON.stringify(two).length);
  const list = [];
  for (let i = 0; i < listCopies; i++) list.push(...two);
  chatList = { records: list.length, path: await tempFile('chat-list.json', JSON.stringify(list)) };
});
after(async () => { await browser?.close(); await srv?.close(); });

const count = (text) => Number(text.match(/^\d+/)[0]);

test('one huge run is readable while it is read: its steps so far, then the whole run', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', huge.path);
  // Ready while read: the run open with the steps read so far, marked as still read.
  const seen = await whileReading(page, {
    id: '[data-testid="traj-id"]',
    growing: '[data-testid="diagnosis-growing"]',
    verdict: '[data-testid="candidates-empty"]',
    pending: '[data-testid="candidates-pending"]',
    steps: '[data-testid="step-count"]',
    early: '[data-testid="progress-early"]',
  });
  assert.equal(seen.id, 'run-huge');
  assert.match(seen.growing, /still being read: its first \d+ steps are shown/);
  assert.equal(seen.verdict, null, 'no verdict on a copy');
  assert.notEqual(seen.pending, null, 'the candidates come with the analysis');
  const early = seen.steps;
  assert.match(early, /so far \(still being read\)/);
  assert.ok(count(early) > 3 && count(early) < huge.steps, `${early} of ${huge.steps}`);
  assert.match(seen.early, /1 trajectory read so far/);
  await screenshot(page, 'load-growing');
  // The reviewer picks a step while the file is read.
  await page.locator('[data-testid="step"][data-step="3"]').click();
  await page.waitForSelector('[data-testid="step"][data-step="3"][aria-selected="true"]');
  // Read whole: the whole run, analysed, the same step selected.
  await waitReady(page, 180000);
  assert.equal(await page.locator('[data-testid="diagnosis-growing"]').count(), 0);
  assert.equal(await page.locator('[data-testid="progress"]').count(), 0);
  assert.equal(await page.textContent('[data-testid="traj-id"]'), 'run-huge');
  assert.equal(count(await page.textContent('[data-testid="step-count"]')), huge.steps);
  assert.equal(await page.locator('[data-testid="diagnosis-pending"]').count(), 0, 'analysed');
  await page.waitForSelector('[data-testid="step"][data-step="3"][aria-selected="true"]');
  await screenshot(page, 'load-growing-whole');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a first run that settles after the first slice replaces its copy while the file is read', async () => {
  // Three loads: the copy's columns, the settled run's row and its columns again race on the
  // page (it once waited for columns it never asked again).
  for (let k = 0; k < 3; k++) {
    const { page, context, errors } = await newPage(browser);
    await page.goto(srv.url);
    await page.setInputFiles('[data-testid="file-input"]', late.path);
    await page.waitForSelector('.app[data-state="ready"] [data-testid="step"]', { timeout: 60000 });
    assert.equal(await page.textContent('[data-testid="traj-id"]'), 'run-0');
    // Settled: the whole run, no longer said to be read, its columns in.
    await page.waitForSelector('[data-testid="step-count"]:has-text("12 (")', { timeout: 60000 });
    await page.waitForSelector('.app[data-state="ready"] [data-testid="step"]', { timeout: 30000 });
    assert.equal(await page.locator('[data-testid="diagnosis-growing"]').count(), 0);
    await waitReady(page, 120000);
    assert.equal(await page.getAttribute('[data-testid="queue-scroller"]', 'aria-label'), `${late.runs} trajectories`);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('a Codex session is readable while it is read: its steps so far, then the whole session', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', codex.path);
  const seen = await whileReading(page, {
    id: '[data-testid="traj-id"]',
    growing: '[data-testid="diagnosis-growing"]',
    steps: '[data-testid="step-count"]',
  });
  assert.equal(seen.id, '019e1695-0522-7c83-8b39-0dd379793f80');
  assert.match(seen.growing, /still being read/);
  const early = count(seen.steps);
  assert.ok(early > 3 && early < 32 * codex.copies, `${early} steps so far`);
  await waitReady(page, 180000);
  assert.equal(await page.locator('[data-testid="diagnosis-growing"]').count(), 0);
  assert.equal(count(await page.textContent('[data-testid="step-count"]')), 32 * codex.copies);
  assert.deepEqual(errors, []);
  await context.close();
});

test('TRAJERRBENCH records, one a line, are readable as their lines are read', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', records.path);
  const seen = await whileReading(page, { id: '[data-testid="traj-id"]', growing: '[data-testid="diagnosis-growing"]' });
  assert.equal(seen.id, 'airline_failed_qwen3-max::303997d3-6427-41a9-8ef8-33b0093e6628');
  assert.equal(seen.growing, null, 'a whole record, not a copy');
  await waitReady(page, 180000);
  assert.equal(await page.getAttribute('[data-testid="queue-scroller"]', 'aria-label'), `${2 * records.copies} trajectories`);
  assert.equal(await page.textContent('[data-testid="traj-id"]'), 'airline_failed_qwen3-max::303997d3-6427-41a9-8ef8-33b0093e6628');
  assert.deepEqual(errors, []);
  await context.close();
});

test('an OpenAI Agents SDK export is readable while it is read: its first trace so far, then every trace', async () => {
  // Nothing of it settles before its end (a trace has no end marker).
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', agents.path);
  const seen = await whileReading(page, { id: '[data-testid="traj-id"]', growing: '[data-testid="diagnosis-growing"]' });
  assert.equal(seen.id, 'trace_c0');
  assert.match(seen.growing, /still being read/);
  await waitReady(page, 180000);
  assert.equal(await page.locator('[data-testid="diagnosis-growing"]').count(), 0);
  assert.equal(await page.getAttribute('[data-testid="queue-scroller"]', 'aria-label'), `${agents.copies} trajectories`);
  assert.equal(await page.textContent('[data-testid="traj-id"]'), 'trace_c0');
  assert.equal(count(await page.textContent('[data-testid="step-count"]')), 14);
  await page.waitForSelector('[data-testid="diagnosis-step"]');
  assert.equal(await page.getAttribute('[data-testid="diagnosis-step"]', 'data-step'), '5');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a JSON list of chat records on one line is readable as its records are read', async () => {
  // Before, the whole 40 MB document was parsed at its end before anything was shown.
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', chatList.path);
  const seen = await whileReading(page, { id: '[data-testid="traj-id"]', growing: '[data-testid="diagnosis-growing"]' });
  assert.equal(seen.id, 'chat-1');
  assert.equal(seen.growing, null, 'a whole record, not a copy');
  await waitReady(page, 180000);
  assert.equal(await page.getAttribute('[data-testid="queue-scroller"]', 'aria-label'), `${chatList.records} trajectories`);
  assert.equal(await page.textContent('[data-testid="traj-id"]'), 'chat-1');
  assert.equal(count(await page.textContent('[data-testid="step-count"]')), 8);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  await screenshot(page, 'growing-chat-list');
  assert.deepEqual(errors, []);
  await context.close();
});

test('one SWE-agent document on one line is readable while it is read: its first steps, then the whole run', async () => {
  // A `.traj` is one JSON document, parsed whole at its end; before, nothing of a 40 MB one
  // was shown until then. Its `trajectory` list is now copied as read.
  const doc = JSON.parse(readFileSync(join(FIXTURES, 'swe_agent/pydicom__pydicom-1458.traj'), 'utf8'));
  const perCopy = doc.trajectory.reduce((n, t) => n + ('observation' in t ? 2 : 1), 0);
  const copies = Math.ceil(40e6 / JSON.stringify(doc.trajectory).length);
  doc.trajectory = Array.from({ length: copies }, () => doc.trajectory).flat();
  const path = await tempFile('big.traj', JSON.stringify(doc));
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', path);
  const seen = await whileReading(page, {
    id: '[data-testid="traj-id"]',
    growing: '[data-testid="diagnosis-growing"]',
    steps: '[data-testid="step-count"]',
  });
  assert.equal(seen.id, 'swe-agent-1');
  assert.match(seen.growing, /still being read: its first \d+ steps are shown/);
  const early = count(seen.steps);
  assert.ok(early >= 2 && early < perCopy * copies, `${early} steps so far`);
  await screenshot(page, 'growing-swe-agent-document');
  await waitReady(page, 180000);
  assert.equal(await page.locator('[data-testid="diagnosis-growing"]').count(), 0);
  assert.equal(count(await page.textContent('[data-testid="step-count"]')), perCopy * copies);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  assert.deepEqual(errors, []);
  await context.close();
});
