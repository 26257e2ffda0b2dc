// Formats whose files hold many conversations or spans, read in Chromium as the CLI reads them:
// a JSONL of chat records is one trajectory per record (a cut record quarantined, the rest
// kept), a log of model calls one trajectory per conversation, and an OpenAI Agents SDK span
// export is one trajectory per trace, its critical step the
// call that introduced the error; an ATIF trajectory and a Goose session are read with their
// calls and results, OTLP spans of OpenInference and OpenLLMetry too, and a headless Claude Code
// run's stream with its end and cost, a `codex exec --json` stream (a Langfuse trace is named: the CLI reads it, the page says so). Step
// text is shown as text. A Who&When item shows its gold
// label beside the critical step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, rowsAt, FIXTURES } from './harness.mjs';

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

/** The queue's trajectories: id, format and the critical step shown. */
const queue = (page) => page.locator('[data-testid="queue-item"]').evaluateAll((els) => els.map((e) => ({
  id: e.querySelector('.qid').textContent,
  format: e.querySelector('.qmeta span:first-child').textContent,
  outcome: e.querySelector('.qmeta .outcome').textContent,
})));

test('a JSONL of chat records is one trajectory per record, the cut record quarantined', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'chat', 'openai_messages.jsonl'));
  await waitReady(page);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue-item"]').length === 3);
  assert.deepEqual(await queue(page), [
    { id: 'calc-rounding-7', format: 'chat', outcome: 'failed' },
    { id: 'calc-sum-2', format: 'chat', outcome: 'passed' },
    { id: 'line-4', format: 'chat', outcome: 'failed' },
  ]);
  assert.equal(await page.textContent('[data-testid="format"]'), 'chat');
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '1');
  // The tool call and its result are steps of the open trajectory, shown as text.
  await rowsAt(page);
  const steps = await page.locator('[data-testid="step-text"]').allTextContents();
  assert.ok(steps.some((t) => t.includes("sed -i 's/2.68/2.67/' tests/test_price.py")), steps.join(' | '));
  await screenshot(page, 'formats-chat');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a log of model calls is one trajectory per conversation, each message once', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'generic', 'calls_openai_chat.jsonl'));
  await waitReady(page);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue-item"]').length === 2);
  assert.deepEqual((await queue(page)).map((q) => [q.id, q.format]), [
    ['conversation-1', 'generic'],
    ['conversation-2', 'generic'],
  ]);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '1');
  await rowsAt(page);
  const steps = await page.locator('[data-testid="step-text"]').allTextContents();
  // The test run's output once, though the call that first sent it was retried.
  assert.equal(steps.filter((t) => t.includes('1 failed, 1 passed')).length, 1, steps.join(' | '));
  assert.ok(steps.some((t) => t.includes('Rate limit reached')), steps.join(' | '));
  assert.ok(steps.some((t) => t.includes('the tests pass now')), steps.join(' | '));
  await screenshot(page, 'formats-call-log');
  assert.deepEqual(errors, []);
  await context.close();
});

test('an OpenAI Agents SDK span export is one trajectory per trace, with its critical step', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'openai_agents', 'refund_handoff.jsonl'));
  await waitReady(page);
  assert.deepEqual(await queue(page), [
    { id: 'trace_4f1c2a9be07d4c5a8e1b2c3d4e5f6a7b', format: 'openai-agents', outcome: 'failed' },
  ]);
  await page.waitForSelector('[data-testid="diagnosis-step"]');
  // The refund agent's lookup with the wrong order id, not the tool's error or the guardrail.
  assert.equal(await page.getAttribute('[data-testid="diagnosis-step"]', 'data-step'), '5');
  assert.match(await page.textContent('[data-testid="diagnosis-who"]'), /Refund agent/);
  await screenshot(page, 'formats-openai-agents');
  assert.deepEqual(errors, []);
  await context.close();
});

test('an ATIF trajectory (Harbor) is read: its calls, their results and the failed test run', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'atif', 'claude_code_rename.trajectory.json'));
  await waitReady(page);
  assert.deepEqual(await queue(page), [
    { id: 'b7c1e0d2-rename-helper', format: 'atif', outcome: 'failed' },
  ]);
  assert.equal(await page.textContent('[data-testid="format"]'), 'atif');
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  await rowsAt(page);
  const steps = await page.locator('[data-testid="step-text"]').allTextContents();
  assert.ok(steps.some((t) => t.includes("NameError: name 'total' is not defined")), steps.join(' | '));
  assert.ok(steps.some((t) => t.includes('subagent session sub-4f2a')), steps.join(' | '));
  await page.waitForSelector('[data-testid="diagnosis-step"]');
  await screenshot(page, 'formats-atif');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a Goose session is read with its calls and results', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'chat', 'goose_session.json'));
  await waitReady(page);
  assert.deepEqual(await queue(page), [{ id: '20251201_3', format: 'chat', outcome: 'unknown' }]);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  await rowsAt(page);
  const steps = await page.locator('[data-testid="step-text"]').allTextContents();
  assert.ok(steps.some((t) => t.includes('Execution failed: file tests/test_slug.py is read-only')),
    steps.join(' | '));
  await screenshot(page, 'formats-goose');
  assert.deepEqual(errors, []);
  await context.close();
});

test('OpenInference and OpenLLMetry spans are read with their messages, calls and results', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'otel', 'openinference_openllmetry.jsonl'));
  await waitReady(page);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue-item"]').length === 2);
  assert.deepEqual(await queue(page), [
    { id: '3f2a9c1e5d7b4a6c8e0f1a2b3c4d5e6f', format: 'otel', outcome: 'unknown' },
    { id: '9d8c7b6a5f4e3d2c1b0a998877665544', format: 'otel', outcome: 'failed' },
  ]);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  await rowsAt(page);
  const steps = await page.locator('[data-testid="step-text"]').allTextContents();
  for (const want of ['What was the closing price of ACME on 2024-03-05?', 'get_stock_price',
    'ACME closed at 42.10 USD on 2024-03-15.']) {
    assert.ok(steps.some((t) => t.includes(want)), `${want}: ${steps.join(' | ')}`);
  }
  await screenshot(page, 'formats-openinference');
  assert.deepEqual(errors, []);
  await context.close();
});

test("a headless Claude Code run's stream: its sessions, its end and its cost", async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'claude_code', 'headless-stream.jsonl'));
  await waitReady(page);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue-item"]').length === 2);
  // A `success` result leaves the outcome unknown; the turn limit fails the second run.
  assert.deepEqual(await queue(page), [
    { id: '7d2b9c1e-4a3f-4e8b-9c0d-1f2e3a4b5c6d', format: 'claude-code', outcome: 'unknown' },
    { id: 'c41f0a9e-2b7d-4c3a-8e5f-6a7b8c9d0e1f', format: 'claude-code', outcome: 'failed' },
  ]);
  await rowsAt(page);
  const steps = await page.locator('[data-testid="step-text"]').allTextContents();
  assert.equal(steps.length, 10, steps.join(' | '));
  for (const want of ['Do not modify the tests.', "I'll drop that test so CI goes green.", 'CI is green: the date tests pass.']) {
    assert.ok(steps.some((t) => t.includes(want)), `${want}: ${steps.join(' | ')}`);
  }
  // The run's cost and time are the result line's; its tokens the steps'.
  const usage = await page.textContent('[data-testid="usage"]');
  assert.ok(usage.includes('tokens in 12') && usage.includes('$0.0387'), usage);
  await screenshot(page, 'formats-claude-headless');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a `codex exec --json` stream: its thread, its commands with their exit codes, its failed turn', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'codex', 'exec-json.jsonl'));
  await waitReady(page);
  assert.deepEqual(await queue(page), [
    { id: '0199c3d4-5e6f-7a81-9b2c-3d4e5f6a7b8c', format: 'codex', outcome: 'failed' },
  ]);
  await rowsAt(page);
  const steps = await page.locator('[data-testid="step-text"]').allTextContents();
  // Twelve steps as the CLI reads them (tests/fixtures/codex/exec-json.jsonl.expected), not one a line.
  assert.equal(steps.length, 12, steps.join(' | '));
  for (const want of ["bash -lc 'pytest -q tests/test_cfg.py'", "KeyError: 'APP_PORT'", 'stream disconnected before completion']) {
    assert.ok(steps.some((t) => t.includes(want)), `${want}: ${steps.join(' | ')}`);
  }
  await screenshot(page, 'formats-codex-exec');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a Langfuse trace is named, and the page says the CLI reads it', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'langfuse', 'flight_trace.json'));
  await page.waitForSelector('[data-testid="no-steps"]');
  assert.match(await page.textContent('.app'), /the document looks like langfuse but the browser does not read Langfuse traces yet; `trajscope analyze FILE` reads them/);
  await screenshot(page, 'formats-langfuse');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a Who&When item shows its gold label beside the critical step, on the first screen', async () => {
  for (const [item, gold] of [['hc_6.json', /^#5 \(Orchestrator\) · the critical step$/],
    // ag_81: the detector's critical step is 4 (Fashion_Vogue_Expert), the gold one 5; if a
    // later detector finds it, pick another development item it misses.
    ['ag_81.json', /^#5 \(DataVerification_Expert\) · not the critical step$/]]) {
    const { page, context, errors } = await newPage(browser);
    await page.goto(srv.url);
    const folder = item === 'ag_81.json' ? 'who_and_when_missed' : 'who_and_when';
    await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, folder, item));
    await waitReady(page);
    await page.waitForSelector('[data-testid="gold"]');
    assert.match(await page.textContent('[data-testid="gold"]'), gold, item);
    assert.ok(await page.isVisible('[data-testid="gold"]'), `${item}: shown without opening "more"`);
    if (item === 'ag_81.json') await screenshot(page, 'formats-gold-label');
    assert.deepEqual(errors, []);
    await context.close();
  }
});
