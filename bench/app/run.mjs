// App benchmark (not part of the test gate): in headless Chromium, for every benchmark shape
// (files made by bench/app.sh: gen-awtl's long, short, one-step and huge-run shapes and the
// files of bench/other_shapes.py), in the same run:
//   - the plain JavaScript reader of the same file (File slices of 4 MiB, TextDecoder in stream
//     mode, JSON.parse per line): its time and its renderer's peak RSS;
//   - the built app: pick-to-ready (the `change` of the file input to `ready` with a step on
//     screen), DOM nodes then, the time until every trajectory is analysed and DOM nodes then,
//     queue scroll frames (files of many trajectories) and the renderer's peak RSS (VmHWM of the
//     renderer process: the page's and the worker's JS heaps, their wasm memories and the rest of
//     the renderer) against the file's size;
// then the DOM node count and scroll frames of the transcript with a 100,000-step trace.
// `ready` is the first trajectory readable (its columns in, a step on screen); on a file of many
// runs it comes while the worker still reads the rest (`data-reading` on the app root), and the
// rest of the read, the secret scan and the other trajectories' analysis run after it ("all
// analysed" waits for them all; the lines shown at `ready` are then the lines read so far). Where the
// time goes: the worker's `trajscope-timing` line (read, feed, finish, first analysis and the
// rows, posting `Loaded`), the page's `trajscope-timing-page` lines (reading each message,
// applying it), the worker's `trajscope-timing-background` line (the scan, the rest of the
// analysis), and the pick and `ready` on the same clock (`at=`, Date.now()): all in
// `worker_timings` of the output.
// Each measurement runs in a fresh Chromium profile, so each peak is its own.
// Run with bench/app.sh (it builds the release bundle and the files first).
//   node bench/app/run.mjs NAME=FILE ...    BENCH_RUNS (default 1: runs per shape),
//   BENCH_ANALYSE_S (default 600: how long to wait for the background analysis),
//   BENCH_SETTLE_MS (default 1000: how long after the page shows the file is picked)
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { rendererPeak, ARGS } from '../chromium.mjs';
import { serveDist } from '../../tests/e2e/harness.mjs';
import { tempFile, steps } from '../../tests/e2e/gen.mjs';

const RUNS = Number(process.env.BENCH_RUNS || 1);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 1000);
const ANALYSE_MS = Number(process.env.BENCH_ANALYSE_S || 600) * 1000;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const MiB = 1024 * 1024;
const SHAPES = process.argv.slice(2).map((a) => { const [name, path] = a.split('='); return { name, path }; });

const srv = await serveDist();

/** Runs `fn(page)` in a fresh Chromium profile; adds the renderer's peak RSS to its result. */
async function fresh(fn) {
  const dir = await mkdtemp(join(tmpdir(), 'trajscope-app-bench-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROME_BIN || '/usr/bin/chromium', headless: true, args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    const r = await fn(page);
    return { ...r, renderer_peak_mib: Math.round((await rendererPeak(dir)) / MiB) };
  } finally {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const nodes = (page) => page.evaluate(() => document.querySelectorAll('*').length);

/** Median and 95th percentile frame time while scrolling `selector` down `n` times by `by` px. */
const frames = (page, selector, n = 100, by = 300) => page.$eval(selector, async (el, [n, by]) => {
  el.scrollTop = 0;
  const ms = [];
  let t = performance.now();
  for (let i = 0; i < n; i++) {
    el.scrollTop += by;
    await new Promise((ok) => requestAnimationFrame(ok));
    const now = performance.now(); ms.push(now - t); t = now;
  }
  ms.sort((a, b) => a - b);
  return { median_ms: +ms[Math.floor(n / 2)].toFixed(1), p95_ms: +ms[Math.floor(n * 0.95)].toFixed(1) };
}, [n, by]);

const timings = [];
async function appLoad(big) {
  return fresh(async (page) => {
    const errors = [];
    page.on('console', (m) => {
      if (m.text().startsWith('trajscope-timing')) timings.push(`${big.name}: ${m.text()}`);
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(srv.url);
    await page.waitForSelector('.app[data-state="empty"]');
    // A person picks a file a second or more after the page shows: BENCH_SETTLE_MS (default
    // 1000) waits that long first; 0 picks as soon as the page shows, while its start-up (the
    // worker's instantiation, V8's compiles) still shares the two cores.
    if (SETTLE_MS > 0) await page.waitForTimeout(SETTLE_MS);
    // From the file being handed to the page to `ready` with the first step on screen.
    await page.evaluate(() => {
      const input = document.querySelector('[data-testid="file-input"]');
      input.addEventListener('change', () => { window.__t0 = performance.now(); window.__d0 = Date.now(); }, { capture: true, once: true });
      new MutationObserver((_, obs) => {
        const app = document.querySelector('.app');
        if (app.dataset.state === 'error' || document.querySelector('[data-testid="load-error"]')) {
          window.__failed = app.textContent.slice(0, 300); obs.disconnect();
        }
        if (app.dataset.state === 'ready' && document.querySelector('[data-testid="step"]')) {
          window.__t1 = performance.now(); window.__d1 = Date.now(); obs.disconnect();
        }
      }).observe(document.body, { subtree: true, attributes: true, childList: true });
    });
    await page.setInputFiles('[data-testid="file-input"]', big.path);
    await page.waitForFunction(() => window.__t1 !== undefined || window.__failed !== undefined || document.querySelector('.app[data-state="error"]'),
      null, { timeout: 1800000, polling: 200 });
    const failed = await page.evaluate(() => window.__failed || (document.querySelector('.app[data-state="error"]') ? document.querySelector('.app').textContent.slice(0, 300) : null));
    if (failed) return { failed, errors };
    const ms = await page.evaluate(() => window.__t1 - window.__t0);
    // The worker's and the page's timing lines give absolute times (`at=`, Date.now()): the
    // pick and `ready` on the same clock place them.
    const clock = await page.evaluate(() => ({ pick_at: window.__d0, ready_at: window.__d1 }));
    timings.push(`${big.name}: pick at=${clock.pick_at} ready at=${clock.ready_at}`);
    const lines = await page.textContent('[data-testid="lines"]').catch(() => '');
    const dom_ready = await nodes(page);
    // The rest are analysed behind the progress line; wait for it to go.
    let analysed_ms = null;
    try {
      await page.waitForFunction(() => !document.querySelector('[data-testid="analysis-progress"]'), null, { timeout: ANALYSE_MS, polling: 250 });
      analysed_ms = await page.evaluate(() => performance.now() - window.__t0);
    } catch { /* still analysing: reported as null */ }
    const dom_analysed = await nodes(page);
    const queue = await page.$('[data-testid="queue-scroller"]');
    const queue_frames = queue ? await frames(page, '[data-testid="queue-scroller"]') : null;
    const dom_after_queue_scroll = queue ? await nodes(page) : null;
    return { ms, lines, dom_ready, analysed_ms, dom_analysed, queue_frames, dom_after_queue_scroll, errors };
  });
}

async function plainLoad(big) {
  return fresh(async (page) => {
    await page.setContent('<input type="file" id="f">');
    await page.setInputFiles('#f', big.path);
    return page.evaluate(async () => {
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
  });
}

async function domCount() {
  const path = await tempFile('steps100k.jsonl', steps(100000));
  return fresh(async (page) => {
    await page.goto(srv.url);
    await page.setInputFiles('[data-testid="file-input"]', path);
    await page.waitForSelector('.app[data-state="ready"]', { timeout: 600000 });
    await page.waitForSelector('[data-testid="step"][data-loaded="true"]', { timeout: 600000 });
    const count = () => page.evaluate(() => ({ nodes: document.querySelectorAll('*').length, rows: document.querySelectorAll('[data-testid="step"]').length }));
    const top = await count();
    await page.$eval('[data-testid="step-list"]', (el) => { el.scrollTop = el.scrollHeight / 2; });
    await page.waitForTimeout(500);
    const mid = await count();
    const scroll = await frames(page, '[data-testid="step-list"]', 200, 400);
    return { top, mid, scroll };
  });
}

const shapes = [];
for (const big of SHAPES) {
  const size = statSync(big.path).size;
  const app = [], plain = [];
  for (let i = 0; i < RUNS; i++) {
    plain.push(await plainLoad(big));
    app.push(await appLoad(big));
    const a = app[i];
    console.error(a.failed
      ? `${big.name} run ${i + 1}: app failed: ${a.failed}`
      : `${big.name} run ${i + 1}: app ready ${a.ms.toFixed(0)} ms, all analysed ${a.analysed_ms?.toFixed(0) ?? 'not yet'} ms, plain JS reader ${plain[i].ms.toFixed(0)} ms, DOM ${a.dom_ready} / ${a.dom_analysed}, renderer peak ${a.renderer_peak_mib} MiB (plain ${plain[i].renderer_peak_mib} MiB)`);
  }
  const ok = app.filter((r) => !r.failed);
  const appMs = ok.length ? median(ok.map((r) => r.ms)) : null;
  const plainMs = median(plain.map((r) => r.ms));
  shapes.push({
    shape: big.name,
    file_mb: +(size / 1e6).toFixed(1),
    app_pick_to_ready_ms: appMs && Math.round(appMs),
    plain_js_reader_ms: Math.round(plainMs),
    ratio_plain_over_app: appMs && +(plainMs / appMs).toFixed(2),
    plain_parsed: plain[0].parsed,
    app_all_analysed_ms: ok.length && ok.every((r) => r.analysed_ms) ? Math.round(median(ok.map((r) => r.analysed_ms))) : null,
    dom_nodes_when_ready: ok.length ? Math.max(...ok.map((r) => r.dom_ready)) : null,
    dom_nodes_when_analysed: ok.length ? Math.max(...ok.map((r) => r.dom_analysed)) : null,
    dom_nodes_after_queue_scroll: ok[0]?.dom_after_queue_scroll ?? null,
    queue_scroll_frames: ok[0]?.queue_frames ?? null,
    app_renderer_peak_mib: Math.max(...app.map((r) => r.renderer_peak_mib)),
    app_renderer_peak_over_file: +(Math.max(...app.map((r) => r.renderer_peak_mib)) * MiB / size).toFixed(2),
    plain_renderer_peak_mib: Math.max(...plain.map((r) => r.renderer_peak_mib)),
    app_lines_shown: ok[0]?.lines ?? null,
    app_failed: app.find((r) => r.failed)?.failed ?? null,
    page_errors: [...new Set(app.flatMap((r) => r.errors || []))].slice(0, 5),
  });
}
const dom = process.env.BENCH_SKIP_100K === '1' ? null : await domCount();
console.log(JSON.stringify({ runs: RUNS, settle_ms: SETTLE_MS, shapes, dom_100k_steps: dom, worker_timings: timings }, null, 2));
await srv.close();
