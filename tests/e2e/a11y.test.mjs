// Accessibility: axe-core 4 on the loaded sample, in light and in dark (prefers-color-scheme),
// on the first view, with a candidate and the help dialog shown, in the Annotate mode and in
// the Compare mode (two attempts of one task); any serious or critical violation fails, naming
// the rule and the nodes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { serveDist, launch, newPage, screenshot, waitReady } from './harness.mjs';
import { tempFile, attempt } from './gen.mjs';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

/** The serious and critical violations axe finds on the page as it is now. */
async function serious(page) {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(AXE);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary}`) }));
}

for (const scheme of ['light', 'dark']) {
  test(`axe finds no serious or critical violation on the loaded sample (${scheme})`, async () => {
    const { page, context, errors } = await newPage(browser, { colorScheme: scheme });
    await page.goto(srv.url + '?url=samples/sample.awtl.jsonl');
    await waitReady(page);
    await page.waitForSelector('[data-testid="candidate"]');
    assert.equal(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), scheme === 'dark');
    await screenshot(page, `a11y-${scheme}`);
    assert.deepEqual(await serious(page), [], 'first view');

    await page.click('[data-testid="candidate"]');
    await page.waitForSelector('[data-testid="step"].selected');
    await screenshot(page, `a11y-${scheme}-candidate`);
    assert.deepEqual(await serious(page), [], 'a candidate selected');

    await page.click('[data-testid="help-toggle"]');
    await page.waitForSelector('[data-testid="help"]');
    assert.deepEqual(await serious(page), [], 'the help dialog open');

    // The Annotate mode: the queue's progress and filters, the label form beside the transcript.
    await page.keyboard.press('Escape');
    await page.waitForSelector('[data-testid="help"]', { state: 'detached' });
    await page.click('[data-testid="mode-annotate"]');
    await page.waitForSelector('[data-testid="annotate"]', { state: 'visible' });
    await screenshot(page, `a11y-${scheme}-annotate`);
    assert.deepEqual(await serious(page), [], 'annotating');

    // The Compare mode: two attempts of one task side by side, the divergence selected.
    await page.setInputFiles('[data-testid="file-input"]',
      await tempFile('attempts.jsonl', attempt('attempt-pass', true) + attempt('attempt-fail', false)));
    await page.waitForFunction(() => document.querySelector('[data-testid="traj-id"]')?.textContent === 'attempt-pass');
    await page.click('[data-testid="mode-compare"]');
    await page.waitForSelector('[data-testid="divergence"][aria-selected="true"]');
    await page.waitForFunction(() => document.querySelector('[data-testid="compare-detail-right"]')?.dataset.loaded === 'true');
    await screenshot(page, `a11y-${scheme}-compare`);
    assert.deepEqual(await serious(page), [], 'comparing');
    assert.deepEqual(errors, []);
    await context.close();
  });
}
