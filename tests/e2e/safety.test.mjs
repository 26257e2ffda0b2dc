// Safety: trace content is text, never HTML (script / onerror payloads stay inert); the CSP
// forbids other origins; the page requests nothing but its own assets.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, newPage, screenshot, waitReady } from './harness.mjs';
import { tempFile, line } from './gen.mjs';

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

const PAYLOADS = [
  '<script>window.__xss = (window.__xss || 0) + 1</script>',
  '<img src=x onerror="window.__xss = (window.__xss || 0) + 1">',
  '<svg onload="window.__xss=1"></svg><iframe src="javascript:window.__xss=1"></iframe>',
];

test('script and onerror payloads in a trace stay inert text everywhere they are shown', async () => {
  const run_id = '<img src=x onerror=window.__xss=1>';
  const content = line({ type: 'run_start', run_id, task: PAYLOADS[1] })
    + line({ type: 'message', run_id, role: 'user', agent: '<script>window.__xss=1</script>', content: PAYLOADS.join('\n') })
    + line({ type: 'action', run_id, tool: '<b>shell</b>', command: PAYLOADS[0] })
    + line({ type: 'observation', run_id, exit_code: 1, output: `error: ${PAYLOADS[1]}` })
    + `{"broken": "${PAYLOADS[1]}\n`
    + line({ type: 'run_end', run_id, status: 'failed' });
  const path = await tempFile('xss.jsonl', content);
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', path);
  await waitReady(page);
  assert.equal(await page.locator('[data-testid="step"]').count(), 5);
  await page.fill('[data-testid="search"]', 'onerror');
  await page.click('[data-testid="search-next"]');
  await page.waitForSelector('mark.hit');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'no payload ran');
  const injected = await page.evaluate(() => document.querySelectorAll('.app script, .app img, .app iframe, .app b, .app svg:not([data-testid="timeline"])').length);
  assert.equal(injected, 0, 'no element came from the trace');
  const shown = await page.locator('[data-testid="step-text"]').allTextContents();
  assert.ok(shown.some((t) => t.includes('<script>window.__xss')), 'the payload is shown as text');
  assert.ok((await page.textContent('[data-testid="quarantine"]')).includes('<img src=x onerror'));
  assert.ok((await page.textContent('.queue')).includes('<img src=x onerror=window.__xss=1>'));
  assert.deepEqual(errors, []);
  await screenshot(page, 'safety-xss');
  await context.close();
});

test('no request leaves the origin and the CSP blocks other origins', async () => {
  const { page, context, requests } = await newPage(browser);
  await page.goto(srv.url);
  await page.click('[data-testid="load-sample"]');
  await waitReady(page);
  await page.keyboard.press('j');
  await page.click('[data-testid="grain-high"]');
  const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', 'content');
  assert.match(csp, /connect-src 'self'/);
  assert.match(csp, /default-src 'self'/);
  assert.doesNotMatch(csp, /'unsafe-inline'|'unsafe-eval'/);
  const blocked = await page.evaluate(async () => {
    try { await fetch('http://example.invalid/x'); return false; } catch { return true; }
  });
  assert.ok(blocked, 'a fetch to another origin fails');
  const others = requests.filter((u) => !u.startsWith(srv.origin + '/') && !u.startsWith('http://example.invalid'));
  assert.deepEqual(others, []);
  const own = requests.filter((u) => u.startsWith(srv.origin + '/'));
  assert.ok(own.some((u) => /\/worker-[0-9a-f]{16}\.js$/.test(u)), 'the worker loads from the same origin');
  assert.ok(own.some((u) => /\/app-[0-9a-f]{1,16}_bg\.wasm$/.test(u)), 'the one wasm module loads from the same origin');
  await context.close();
});
