// The review view's fonts are looked up with the page, not after the pick. Each new family,
// size and weight a layout meets costs a synchronous request to the browser (about 1 ms each,
// more on a busy machine), and the first render after a pick met 15 to 25 of them: a hidden
// block in `index.html` (`.font-warm`, beside the app's root) uses each one as the page loads
// (`docs/performance.md`). This test keeps that block true: every font the review view shows
// on traces of several formats is one the page had already used.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, newPage, waitReady, FIXTURES } from './harness.mjs';

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

/** The fonts of the laid-out text under `root` (or of `.font-warm`'s spans, laid out though
 * hidden): family (mono or not), size, weight and style. */
const fontsOf = (page, selector, hidden = false) => page.evaluate(([selector, hidden]) => {
  const out = new Set();
  const key = (el) => {
    const cs = getComputedStyle(el);
    return `${/mono/i.test(cs.fontFamily) ? 'mono' : 'sans'} ${cs.fontSize} ${cs.fontWeight} ${cs.fontStyle}`;
  };
  for (const root of document.querySelectorAll(selector)) {
    const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (!n.textContent.trim() || (!hidden && !n.parentElement.getClientRects().length)) continue;
      out.add(key(n.parentElement));
    }
    for (const el of root.querySelectorAll('input, select, textarea, button')) {
      if (el.getClientRects().length) out.add(key(el));
    }
  }
  return [...out].sort();
}, [selector, hidden]);

const TRACES = [
  ['awtl', 'env_blocker_browser.awtl.jsonl'],
  ['claude_code', 'codemie-agent-36541525.jsonl'],
  ['codex', 'examples-one-per-kind.jsonl'],
  ['trajerrbench', 'records.jsonl'],
  ['who_and_when', 'ag_1.json'],
  ['chat', 'openai_messages.jsonl'],
  ['tau2', 'airline_3_simulations.json'],
  ['mini_swe_agent', 'github_issue.traj.json'],
];

test('every font the review view shows was used by the page before the pick; the block is hidden and stays', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('.app[data-state="empty"]');
  const warm = new Set([...await fontsOf(page, '.font-warm', true), ...await fontsOf(page, '.app')]);
  assert.ok(warm.size > 20, `the warm-up block lays out the review view's fonts: ${[...warm]}`);
  const hidden = await page.$eval('.font-warm', (el) => ({
    visibility: getComputedStyle(el).visibility,
    aria: el.getAttribute('aria-hidden'),
    inApp: !!el.closest('.app'),
    width: el.getBoundingClientRect().width,
  }));
  assert.deepEqual(hidden, { visibility: 'hidden', aria: 'true', inApp: false, width: 1 });
  await context.close();
  const missing = new Set();
  for (const [dir, name] of TRACES) {
    const { page, context, errors } = await newPage(browser);
    await page.goto(srv.url);
    await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, dir, name));
    await waitReady(page);
    await page.waitForSelector('[data-testid="step"]');
    for (const f of await fontsOf(page, '.app')) if (!warm.has(f)) missing.add(`${f} (${dir}/${name})`);
    assert.equal(await page.locator('.font-warm').count(), 1, 'the block outlives the app\'s mount');
    assert.deepEqual(errors, []);
    await context.close();
  }
  assert.deepEqual([...missing], [], 'fonts to add to index.html\'s .font-warm block');
  assert.deepEqual(errors, []);
});
