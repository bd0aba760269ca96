// Drives Debian's chromium over the viewer site (see check.sh).
// Usage: node check.mjs SITE LEDGER.jsonl RATES.json MODEL FAULT SHOTS
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import readline from 'node:readline';

const [site, ledgerPath, ratesPath, model, fault, shots] = process.argv.slice(2);
const maxMs = Number(process.env.VIEW_MAX_MS || 2000);
const rates = JSON.parse(fs.readFileSync(ratesPath, 'utf8')).rows[0];
let failures = 0;
function check(ok, msg) {
  console.log((ok ? 'ok   ' : 'FAIL ') + msg);
  if (!ok) failures++;
}
async function countOf(page) {
  return Number((await page.textContent('#count')).replace(/,/g, ''));
}
async function eventsOf(page, outcome) {
  return Number((await page.textContent(`#rates tr[data-outcome="${outcome}"] .events`)).replace(/,/g, ''));
}
async function waitHash(page, part) {
  await page.waitForFunction((p) => location.hash.includes(p), part);
}
// The raw ledger line of an episode.
async function ledgerLine(id) {
  const want = '{"episode_id":' + JSON.stringify(id) + ',';
  const rl = readline.createInterface({ input: fs.createReadStream(ledgerPath) });
  for await (const line of rl) {
    if (line.startsWith(want)) { rl.close(); return JSON.parse(line); }
  }
  return null;
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--allow-file-access-from-files'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
page.on('request', (r) => { if (!r.url().startsWith('file://')) errors.push('network request: ' + r.url()); });
const url = 'file://' + site + '/index.html';

// Open.
let t0 = performance.now();
await page.goto(url);
await page.waitForSelector('#list tbody tr');
const total = await countOf(page);
check(total === 25930, `the list opens with ${total} episodes (want 25930)`);

// Filter by model and fault mode: count and events against rates.
t0 = performance.now();
await page.selectOption('#f-model', model);
await waitHash(page, 'model=' + encodeURIComponent(model));
await page.selectOption('#f-fault_mode', fault);
await waitHash(page, 'fault_mode=' + fault);
await page.waitForSelector('#list tbody tr');
const n = await countOf(page), dup = await eventsOf(page, 'duplicated');
check(n === rates.n, `filtered count ${n} equals rates n ${rates.n}`);
check(dup === rates.events, `duplicated events ${dup} equal rates events ${rates.events}`);
const rateText = await page.textContent('#rates tr[data-outcome="duplicated"] .rate');
check(rateText === (100 * rates.p).toFixed(1) + '%', `duplicated rate ${rateText} equals rates p ${rates.p}`);
await page.screenshot({ path: shots + '/list.png', fullPage: false });

// The filters live in the URL: a fresh page on the same URL shows the same.
const shared = page.url();
const page2 = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page2.goto(shared);
await page2.waitForSelector('#count');
check(await countOf(page2) === n, 'the shared URL shows the same filtered count');
await page2.close();

// Only duplicated episodes; open the first.
await page.selectOption('#f-outcome', 'duplicated');
await waitHash(page, 'outcome=duplicated');
check(await countOf(page) === rates.events, 'outcome filter "duplicated" leaves the duplicated episodes');
t0 = performance.now();
await page.click('#list tbody tr:first-child a');
await page.waitForSelector('#calls tbody tr');
const id = await page.textContent('#ep-h');
const reason = await page.textContent('#reason');
check(/for one logical/.test(reason), `the verdict in words names the repeat: "${reason}"`);

// Calls and effects against the raw ledger.
const raw = await ledgerLine(id);
check(raw !== null, `episode ${id} is in the ledger`);
if (raw) {
  const calls = await page.$$eval('#calls tbody tr', (rows) => rows.map((r) => ({ seq: +r.dataset.seq, t_s: +r.dataset.t, tool: r.dataset.tool, outcome: r.dataset.outcome })));
  const want = raw.calls.map((c) => ({ seq: c.seq, t_s: c.t_s, tool: c.tool, outcome: c.outcome }));
  check(JSON.stringify(calls) === JSON.stringify(want), `the ${calls.length} calls match the ledger's ${want.length}`);
  const effects = await page.$$eval('#effects tbody tr', (rows) => rows.map((r) => ({ seq: +r.dataset.seq, tool: r.dataset.tool, source: r.dataset.source, committed_at_s: +r.dataset.committed, absorbed: r.dataset.absorbed === 'true' })));
  const wantE = raw.effects.map((e) => ({ seq: e.seq, tool: e.tool, source: e.source, committed_at_s: e.committed_at_s, absorbed: e.absorbed }));
  check(JSON.stringify(effects) === JSON.stringify(wantE), `the ${effects.length} effects match the ledger's ${wantE.length}`);
  const svgCalls = await page.$$eval('svg.timeline g[data-call]', (g) => g.length);
  const svgEffects = await page.$$eval('svg.timeline g[data-effect]', (g) => g.length);
  check(svgCalls === raw.calls.length && svgEffects === raw.effects.length, `the timeline draws ${svgCalls} calls and ${svgEffects} effects`);
  const faultText = await page.textContent('#fault');
  check(faultText.includes('late'), `the fault is described: "${faultText}"`);
}
await page.screenshot({ path: shots + '/episode.png', fullPage: true });

// Keyboard: next, previous, back to the list.
const pos = await page.textContent('#ep-pos');
await page.keyboard.press('ArrowRight');
await page.waitForFunction((p) => document.getElementById('ep-pos').textContent !== p, pos);
check((await page.textContent('#ep-pos')).startsWith('episode 2 of'), '→ opens the next episode of the filtered list');
await page.waitForSelector('#calls tbody tr');
await page.keyboard.press('k');
await page.waitForFunction((p) => document.getElementById('ep-pos').textContent === p, pos);
check(await page.textContent('#ep-h') === id, 'k goes back to the previous episode');
await page.keyboard.press('Escape');
await page.waitForSelector('#list-view:not([hidden])');
check(await countOf(page) === rates.events, 'Esc returns to the filtered list');

// Keyboard reach: Tab from the top reaches the filters.
await page.goto(url);
await page.waitForSelector('#list tbody tr');
await page.keyboard.press('Tab');
await page.keyboard.press('Tab');
await page.keyboard.press('Tab');
const focused = await page.evaluate(() => document.activeElement && document.activeElement.id);
check(focused === 'f-experiment' || focused === 'f-model', `Tab reaches the first filter (focused: ${focused})`);

// Print stylesheet: the filters and navigation are hidden.
await page.goto(shared.replace(/#.*/, '') + '#ep=' + (await page.$eval('#list tbody tr:first-child a', (a) => a.getAttribute('href').match(/ep=(\d+)/)[1])));
await page.waitForSelector('#calls tbody tr');
await page.emulateMedia({ media: 'print' });
check(await page.$eval('.epnav', (e) => getComputedStyle(e).display) === 'none', 'print hides the navigation');
await page.screenshot({ path: shots + '/episode-print.png', fullPage: true });
await page.emulateMedia({ media: 'screen' });

check(errors.length === 0, 'no page errors or network requests' + (errors.length ? ': ' + errors.join('; ') : ''));

// Timing, best of three cold page loads (the machine is shared): from
// navigation start to the drawn list, from a filter's change to the
// redrawn list, from opening an episode to its drawn timeline (the page's
// own clock, LIMBO_TIMES), and the same steps as the driver saw them.
const best = { open: Infinity, filter: Infinity, episode: Infinity, wopen: Infinity, wfilter: Infinity, wepisode: Infinity };
for (let round = 0; round < 3; round++) {
  // A new context each round: nothing cached, a cold load.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const fresh = await ctx.newPage();
  t0 = performance.now();
  await fresh.goto(url);
  await fresh.waitForFunction(() => window.LIMBO_TIMES && window.LIMBO_TIMES.ready != null);
  best.wopen = Math.min(best.wopen, performance.now() - t0);
  best.open = Math.min(best.open, await fresh.evaluate(() => window.LIMBO_TIMES.ready));
  t0 = performance.now();
  await fresh.evaluate(([m, f]) => { location.hash = '#model=' + encodeURIComponent(m) + '&fault_mode=' + f; }, [model, fault]);
  await fresh.waitForFunction((want) => document.getElementById('count').textContent === String(want), rates.n);
  best.wfilter = Math.min(best.wfilter, performance.now() - t0);
  best.filter = Math.min(best.filter, await fresh.evaluate(() => window.LIMBO_TIMES.last.ms));
  const href = await fresh.$eval('#list tbody tr:nth-child(' + (round + 1) + ') a', (a) => a.getAttribute('href'));
  t0 = performance.now();
  await fresh.evaluate((h) => { location.hash = h; }, href);
  await fresh.waitForFunction(() => window.LIMBO_TIMES.last && window.LIMBO_TIMES.last.view === 'episode');
  best.wepisode = Math.min(best.wepisode, performance.now() - t0);
  best.episode = Math.min(best.episode, await fresh.evaluate(() => window.LIMBO_TIMES.last.ms));
  await ctx.close();
}
const ms = (x) => Math.round(x) + ' ms';
console.log(`times (best of 3, page clock): open ${ms(best.open)}, filter ${ms(best.filter)}, episode ${ms(best.episode)}; ` +
  `as the driver saw them: ${ms(best.wopen)}, ${ms(best.wfilter)}, ${ms(best.wepisode)}`);
const sum = best.open + best.filter + best.episode;
check(sum < maxMs, `open + filter + episode = ${ms(sum)} (page clock), under ${maxMs} ms`);
await browser.close();
if (failures) {
  console.error(`view browser check: ${failures} failure(s); screenshots in ${shots}`);
  process.exit(1);
}
console.log('view browser check passed; screenshots in ' + shots);
