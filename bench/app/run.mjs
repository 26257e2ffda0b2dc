// App benchmark (not part of the test gate): in headless Chromium, for every benchmark shape
// (files made by bench/app.sh: gen-awtl's long, short, one-step and huge-run shapes and the
// files of bench/other_shapes.py), the load-to-ready time of the built app against a plain
// JavaScript reader of the same file in the same browser run (File slices of 4 MiB, TextDecoder
// in stream mode, JSON.parse per line), the DOM node count once ready, and the DOM node count
// and scroll frame times with a 100,000-step trace.
// Run with bench/app.sh (it builds the release bundle and the files first).
//   node bench/app/run.mjs NAME=FILE ...    (BENCH_RUNS, default 1: runs per shape)
import { statSync } from 'node:fs';
import { serveDist, launch, newPage } from '../../tests/e2e/harness.mjs';
import { tempFile, steps } from '../../tests/e2e/gen.mjs';

const RUNS = Number(process.env.BENCH_RUNS || 1);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const SHAPES = process.argv.slice(2).map((a) => { const [name, path] = a.split('='); return { name, path }; });

const srv = await serveDist();
const browser = await launch();

const timings = [];
async function appLoad(big) {
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
  const lines = await page.textContent('[data-testid="lines"]').catch(() => '');
  const nodes = await page.evaluate(() => document.querySelectorAll('*').length);
  await context.close();
  return { ms, lines, nodes };
}

async function plainLoad(big) {
  const { page, context } = await newPage(browser);
  await page.setContent('<input type="file" id="f">');
  await page.setInputFiles('#f', big.path);
  const r = await page.evaluate(async () => {
    const file = document.getElementById('f').files[0];
    const t0 = performance.now();
    const SLICE = 4 << 20;
    const dec = new TextDecoder();
    let rest = '', parsed = 0, bad = 0;
    const eat = (l) => {
      if (!l.trim()) return;
      try { JSON.parse(l); parsed++; } catch { bad++; }
    };
    for (let at = 0; at < file.size; at += SLICE) {
      const buf = await file.slice(at, at + SLICE).arrayBuffer();
      const text = rest + dec.decode(buf, { stream: at + SLICE < file.size });
      let start = 0;
      for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
        eat(text.slice(start, nl));
        start = nl + 1;
      }
      rest = text.slice(start);
    }
    eat(rest);
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

const shapes = [];
for (const big of SHAPES) {
  const app = [], plain = [];
  for (let i = 0; i < RUNS; i++) {
    plain.push(await plainLoad(big));
    app.push(await appLoad(big));
    console.error(`${big.name} run ${i + 1}: app ${app[i].ms.toFixed(0)} ms, plain JS reader ${plain[i].ms.toFixed(0)} ms, DOM ${app[i].nodes}`);
  }
  shapes.push({
    shape: big.name,
    file_mb: +(statSync(big.path).size / 1e6).toFixed(1),
    app_load_to_ready_ms: Math.round(median(app.map((r) => r.ms))),
    plain_js_reader_ms: Math.round(median(plain.map((r) => r.ms))),
    plain_parsed: plain[0].parsed,
    ratio_plain_over_app: +(median(plain.map((r) => r.ms)) / median(app.map((r) => r.ms))).toFixed(2),
    dom_nodes_when_ready: Math.max(...app.map((r) => r.nodes)),
    app_lines_shown: app[0].lines,
  });
}
const dom = await domCount();
console.log(JSON.stringify({ runs: RUNS, shapes, dom_100k_steps: dom, worker_timings: timings }, null, 2));
await browser.close();
await srv.close();
