// SPDX-License-Identifier: GPL-2.0-or-later
//
// node timeline-page.js PAGE RUNS: the page of perfrec-report
// --format=html in Debian's chromium (puppeteer-core, headless, 1280x900),
// RUNS times, each in a fresh tab: the time from navigation to the page's
// first draw with its heatmap (perfrecFlame ready), the page's own parts
// of it, and the redraw of three ranges (a tenth of the capture in its
// middle, one slot, the whole capture less a slot) and of a baseline
// range against one.  Prints one JSON line a run.  bench/timeline-page.sh
// runs it.
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

const [page_path, runs] = process.argv.slice(2);
const url = 'file://' + path.resolve(page_path);

(async () => {
	const browser = await puppeteer.launch({
		executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions',
		       '--disable-background-networking', '--disable-sync'],
	});
	for (let run = 0; run < Number(runs || 3); run++) {
		const page = await browser.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push(e.message));
		await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
		const begin = Date.now();
		await page.goto(url, { waitUntil: 'load', timeout: 120000 });
		await page.waitForFunction(() => window.perfrecFlame && window.perfrecFlame.ready, { timeout: 120000 });
		const loadMs = Date.now() - begin;
		const r = await page.evaluate(() => {
			const f = window.perfrecFlame, t = f.time();
			const end = t.originMs + t.slotCount * t.slotNs / 1e6, slot = t.slotNs / 1e6;
			const mid = (t.originMs + end) / 2, tenth = (end - t.originMs) / 10;
			const timed = (fn) => {
				const a = performance.now();
				fn();
				return { wall: performance.now() - a, page: f.lastRangeMs() };
			};
			const out = { timings: f.timings, columns: t.columns.length, view: t.view,
				      slots: t.slotCount, slotMs: slot, bucketMs: t.bucketNs / 1e6, entries: t.entries,
				      nodes: f.nodeCount() };
			out.tenth = timed(() => f.selectRange(mid - tenth / 2, mid + tenth / 2));
			out.slot = timed(() => f.selectRange(mid, mid + slot));
			out.whole = timed(() => f.selectRange(t.originMs + slot, end));
			out.baseline = timed(() => f.selectBaseline(t.originMs, t.originMs + tenth));
			out.diff = timed(() => f.selectRange(end - tenth, end));
			out.clear = timed(() => f.clearRange());
			return out;
		});
		r.loadMs = loadMs;
		r.errors = errors;
		console.log(JSON.stringify(r));
		await page.close();
	}
	await browser.close();
})().catch((e) => {
	console.error(e.stack);
	process.exit(1);
});
