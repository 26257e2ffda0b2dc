// App benchmark (not part of the test gate): in headless Chromium, the load-to-ready time of a
// generated ~200 MB trace in the built app against a plain JSON.parse-per-line reader of the
// same file in the same browser run, and the DOM node count with a 100,000-step trace.
// Run with bench/app.sh (it builds the release bundle first).
import { serveDist, launch, newPage } from '../../tests/e2e/harness.mjs';
import { bigFile, tempFile, steps } from '../../tests/e2e/gen.mjs';

const MB = Number(process.env.BENCH_MB || 200);
const RUNS = Number(process.env.BENCH_RUNS || 2);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const srv = await serveDist();
const browser = await launch();
const big = await bigFile(MB, 'bench.jsonl');
console.error(`generated ${(big.bytes / 1e6).toFixed(1)} MB, ${big.lines} lines`);

const timings = [];
async function appLoad() {
  const { page, context } = await newPage(browser);
  page.on('console', (m) => { if (m.text().startsWith('trajscope-timing')) timings.push(m.text()); });
  await page.goto(srv.url);
  await page.waitForSelector('.app[data-state="empty"]');
  // Time from the file being handed to the page to the app reporting ready (rows rendered).
  await page.evaluate(() => {
    const input = document.querySelector('[data-testid="file-input"]');
    input.addEventListener('change', () => { window.__t0 = performance.now(); }, { capture: true, once: true });
    new MutationObserver((_, obs) => {
      if (document.querySelector('.app').dataset.state === 'ready' && document.querySelector('[data-testid="step"]')) {
        window.__t1 = performance.now(); obs.disconnect();
      }
    }).observe(document.body, { subtree: true, attributes: true, childList: true });
  });
  await page.setInputFiles('[data-testid="file-input"]', big.path);
  await page.waitForFunction(() => window.__t1 !== undefined, null, { timeout: 600000, polling: 200 });
  const ms = await page.evaluate(() => window.__t1 - window.__t0);
  const lines = await page.textContent('[data-testid="lines"]');
  await context.close();
  return { ms, lines };
}

async function plainLoad() {
  const { page, context } = await newPage(browser);
  await page.setContent('<input type="file" id="f">');
  await page.setInputFiles('#f', big.path);
  const r = await page.evaluate(async () => {
    const file = document.getElementById('f').files[0];
    const t0 = performance.now();
    const reader = file.stream().pipeThrough(new TextDecoderStream()).getReader();
    let rest = '', parsed = 0, bad = 0;
    for (;;) {
      const { done, value } = await reader.read();
      const text = done ? rest : rest + value;
      const parts = text.split('\n');
      rest = done ? '' : parts.pop();
      for (const l of parts) {
        if (!l.trim()) continue;
        try { JSON.parse(l); parsed++; } catch { bad++; }
      }
      if (done) break;
    }
    return { ms: performance.now() - t0, parsed, bad };
  });
  await context.close();
  return r;
}

async function domCount() {
  const path = await tempFile('steps100k.jsonl', steps(100000));
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', path);
  await page.waitForSelector('.app[data-state="ready"]', { timeout: 120000 });
  await page.waitForSelector('[data-testid="step"][data-loaded="true"]');
  const top = await page.evaluate(() => ({ nodes: document.querySelectorAll('*').length, rows: document.querySelectorAll('[data-testid="step"]').length }));
  await page.$eval('[data-testid="step-list"]', (el) => { el.scrollTop = el.scrollHeight / 2; });
  await page.waitForTimeout(500);
  const mid = await page.evaluate(() => ({ nodes: document.querySelectorAll('*').length, rows: document.querySelectorAll('[data-testid="step"]').length }));
  // Scroll smoothness: frames while scrolling 200 times by 400 px.
  const scroll = await page.evaluate(async () => {
    const el = document.querySelector('[data-testid="step-list"]');
    const frames = [];
    let last = performance.now();
    for (let i = 0; i < 200; i++) {
      el.scrollTop += 400;
      await new Promise((ok) => requestAnimationFrame(ok));
      const now = performance.now(); frames.push(now - last); last = now;
    }
    frames.sort((a, b) => a - b);
    return { median_frame_ms: frames[100], p95_frame_ms: frames[190] };
  });
  await context.close();
  return { top, mid, scroll };
}

const app = [], plain = [];
for (let i = 0; i < RUNS; i++) {
  plain.push(await plainLoad());
  app.push(await appLoad());
  console.error(`run ${i + 1}: app ${app[i].ms.toFixed(0)} ms, JSON.parse-per-line ${plain[i].ms.toFixed(0)} ms`);
}
const dom = await domCount();
const result = {
  file_mb: +(big.bytes / 1e6).toFixed(1),
  lines: big.lines,
  app_load_to_ready_ms: Math.round(median(app.map((r) => r.ms))),
  app_lines_shown: app[0].lines,
  plain_json_parse_per_line_ms: Math.round(median(plain.map((r) => r.ms))),
  plain_parsed: plain[0].parsed,
  ratio_app_over_plain: +(median(app.map((r) => r.ms)) / median(plain.map((r) => r.ms))).toFixed(2),
  dom_100k_steps: dom,
  worker_timings: timings,
  runs: RUNS,
};
console.log(JSON.stringify(result, null, 2));
await browser.close();
await srv.close();
