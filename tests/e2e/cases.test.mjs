// The app's Brief and Cases panels show what the CLI prints for the same file: on a real Claude
// Code session and on the real tau2-bench results file (every failing simulation a valid case,
// the brief `ok`, at most five lines). Runs the CLI built by `cargo test` (target/debug).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { serveDist, launch, newPage, screenshot, waitReady, ROOT, FIXTURES } from './harness.mjs';

const run = promisify(execFile);
const CLI = ['release', 'debug'].map((p) => join(ROOT, 'target', p, 'trajscope')).find(existsSync);
let srv, browser;

before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function cli(...args) {
  assert.ok(CLI, 'the trajscope CLI is built (cargo build -p trajscope-cli)');
  const { stdout } = await run(CLI, args, { maxBuffer: 64 << 20 });
  return JSON.parse(stdout);
}

async function panels(path) {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', path);
  await waitReady(page);
  await page.locator('[data-testid="brief"]').waitFor();
  await page.waitForSelector('[data-testid="brief-pending"]', { state: 'detached', timeout: 60000 });
  const brief = (await page.locator('[data-testid="brief-text"]').count())
    ? await page.textContent('[data-testid="brief-text"]')
    : '';
  const cases = await page.locator('[data-testid="case"]').evaluateAll((els) => els.map((e) => ({
    valid: e.dataset.valid === 'true', id: e.querySelector('code').textContent,
  })));
  return { page, context, brief, cases };
}

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return readFile(await dl.path(), 'utf8');
}

for (const [name, rel, failing] of [
  ['a Claude Code session', 'claude_code/coverage-test-fix.jsonl', false],
  ['the tau2 results file', 'tau2/airline_run1.no_raw_data.json.gz', true],
]) {
  test(`Brief and Cases panels show what the CLI prints for ${name}`, async () => {
    const path = join(FIXTURES, rel);
    const fromCli = await cli('cases', path, '--json');
    const briefCli = await cli('brief', path, '--json');
    const { page, context, brief, cases } = await panels(path);
    // The same cases (ids fix trace, trajectory and step), valid or not, in the same order.
    assert.deepEqual(cases, fromCli.cases.map((c) => ({ valid: c.valid, id: c.case_id })));
    // The same brief, word for word.
    assert.equal(brief, briefCli.section);
    if (failing) {
      assert.ok(cases.length > 0 && cases.every((c) => c.valid), JSON.stringify(cases));
      assert.equal(briefCli.status, 'ok');
      const lines = brief.split('\n').filter((l) => l.startsWith('- ['));
      assert.ok(lines.length >= 1 && lines.length <= 5, brief);
      const exported = (await download(page, '[data-testid="export-cases"]')).trim().split('\n');
      assert.deepEqual(exported.map((l) => JSON.parse(l).case_id), cases.map((c) => c.id));
    } else {
      assert.equal(briefCli.status, 'no-op');
      assert.equal(await page.locator('[data-testid="brief-noop"]').count(), 1);
    }
    await page.locator('[data-testid="brief"]').scrollIntoViewIfNeeded();
    await screenshot(page, `cases-${rel.split('/')[0]}`);
    await context.close();
  });
}
