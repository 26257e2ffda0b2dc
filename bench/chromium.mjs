// What the browser benchmarks (bench/browser.mjs, bench/app/run.mjs) share: Chromium's flags
// (as in tests/e2e/harness.mjs) and the renderer's peak memory.
import { readFile, readdir } from 'node:fs/promises';

export const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Peak RSS (VmHWM, bytes) of the renderer processes of the browser whose profile is `dir`
 *  (Chromium rewrites its children's command lines into one space-separated string). */
export async function rendererPeak(dir) {
  let peak = 0;
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const cmd = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
      if (!cmd.includes('--type=renderer') || !cmd.includes(`--user-data-dir=${dir}`)) continue;
      const status = await readFile(`/proc/${pid}/status`, 'utf8');
      peak = Math.max(peak, Number((/VmHWM:\s+(\d+) kB/.exec(status) || [0, 0])[1]) * 1024);
    } catch { /* gone */ }
  }
  return peak;
}
