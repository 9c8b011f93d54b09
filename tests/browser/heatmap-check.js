// SPDX-License-Identifier: GPL-2.0-or-later
//
// The flame graph page's heatmap and ranges in Debian's chromium
// (puppeteer-core), run by tests/test-flame-heatmap.sh:
//
//   node heatmap-check.js phases PAGE EXPECTED SCREENSHOT
//       a capture of tests/phases-workload.  EXPECTED (JSON, from the
//       workload's own clock and perfrec-report --since/--until) gives
//       "seconds": [{startMs, samples}] (the flat view's samples of each
//       whole UTC second) and "phases": [{fn, fromMs, toMs}] (a second
//       on the page's slots inside one phase, and its function).  Checks: the
//       heatmap's 1 s columns have those totals; selecting a phase's
//       range (the page's own API) leaves its function at >= 95 % of the
//       flame graph's width, inverted too, and the page's command is
//       printed ("command: ...") for the shell to run; a drag of the
//       mouse over the heatmap selects a range, a shift-drag the
//       baseline; the hover readout; a baseline range (the
//       other phase) gives the differential graph, the phase's function
//       near +100 points; the screenshot is not blank.
//   node heatmap-check.js hostile PAGE
//       report-hostile's names: the series' keys, the readout and the
//       range's lines hold them as text, no element of theirs.
//   node heatmap-check.js profiles PAGE
//       tests/offcpu-fixture's CPU, off-CPU and wall profiles: each one's
//       heatmap holds its total (samples, or nanoseconds), a range of the
//       whole capture too, kept across the switch, its command with
//       --profile.
//   node heatmap-check.js none PAGE
//       a page without time (one instant): no heatmap, the graph drawn.
//   node heatmap-check.js command PAGE OUT
//       a page of a file with a hostile name: the whole capture selected,
//       the command the page prints written to OUT as it is (for the
//       shell to run: the name must reach perfrec-report as one word).
//
// Each mode fails on a console error, an uncaught exception, or any
// request but the page itself.  Prints "heatmap-check: ..." notes; exits
// 1 with "heatmap-check: FAIL: ..." on the first failed check.
'use strict';
const fs = require('fs');
const path = require('path');
const puppeteer = require('puppeteer-core');

const [mode, pagePath, ...rest] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const url = 'file://' + path.resolve(pagePath);

const { Failure, check, noteAs, failed } = require('./harness');

const note = noteAs('heatmap-check');

async function open(browser) {
	const page = await browser.newPage();
	const problems = [];
	page.on('console', (m) => {
		if (m.type() === 'error' || m.type() === 'warn')
			problems.push(`console ${m.type()}: ${m.text()}`);
	});
	page.on('pageerror', (e) => problems.push('uncaught: ' + e.message));
	page.on('dialog', async (d) => {
		problems.push(`a ${d.type()} dialog: ${d.message()}`);
		await d.dismiss();
	});
	await page.setRequestInterception(true);
	page.on('request', (r) => {
		if (r.url() === url) {
			r.continue();
		} else {
			problems.push('a request for ' + r.url().slice(0, 200));
			r.abort();
		}
	});
	await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
	const begin = Date.now();
	await page.goto(url, { waitUntil: 'load' });
	await page.waitForFunction(() => window.perfrecFlame && window.perfrecFlame.ready, { timeout: 30000 });
	return { page, problems, loadMs: Date.now() - begin };
}

const frames = (page) => page.evaluate(() => window.perfrecFlame.frames());

// The share of the flame graph's width of the widest frame named name.
async function widthShare(page, name) {
	const list = (await frames(page)).filter((f) => f.name === name && !f.faded);
	const width = await page.evaluate(() => window.perfrecFlame.width());
	return list.length ? 100 * Math.max(...list.map((f) => f.width)) / width : 0;
}

async function phases(browser, expectedPath, screenshot) {
	const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
	const { page, problems, loadMs } = await open(browser);
	const time = await page.evaluate(() => window.perfrecFlame.time());
	check(time, 'the page has no heatmap');
	check(await page.$eval('#timeline', (e) => !e.hidden && e.offsetHeight > 0), 'the heatmap is not shown');
	note(`loaded in ${loadMs} ms: ${time.columns.length} columns of ${time.rows} x ${time.bucketNs / 1e6} ms, ` +
	     `${time.slotCount} slots of ${time.slotNs / 1e6} ms, ${time.entries} entries`);
	check(time.rows * time.bucketNs === 1e9, 'a column is not one second');

	// The columns' totals: the flat view's samples of the same seconds.
	for (const second of expected.seconds) {
		const column = time.columns.find((c) => c.startMs === second.startMs);
		check(column, `no column starts at ${new Date(second.startMs).toISOString()}`);
		check(column.samples === second.samples,
		      `the column of ${new Date(second.startMs).toISOString()}: ${column.samples} samples, ` +
		      `the flat view ${second.samples}`);
	}
	note(`${expected.seconds.length} columns equal the flat view's samples of their seconds`);

	// A phase's range: its function nearly the whole graph.
	for (const phase of expected.phases) {
		const sel = await page.evaluate((a, b) => window.perfrecFlame.selectRange(a, b), phase.fromMs, phase.toMs);
		check(sel && sel.range, 'no range selected');
		check(sel.range.sinceMs === phase.fromMs && sel.range.untilMs === phase.toMs,
		      `asked ${new Date(phase.fromMs).toISOString()} to ${new Date(phase.toMs).toISOString()}, ` +
		      `the page took ${sel.range.since} to ${sel.range.until}`);
		const share = await widthShare(page, phase.fn);
		const shown = await page.$eval('#range', (e) => e.textContent);
		const command = await page.$eval('#range-command', (e) => e.textContent);
		note(`${phase.fn}: range ${sel.range.since} to ${sel.range.until}, ${share.toFixed(1)}% of the width`);
		check(share >= 95, `${phase.fn} is ${share.toFixed(1)}% of the range's graph`);
		check(shown.includes(new Date(sel.range.sinceMs).toISOString()) && /snap/.test(shown),
		      `the range's line: ${shown}`);
		check(command === sel.command && command.includes('--since ' + sel.range.since) &&
		      command.includes('--until ' + sel.range.until), `the command: ${command}`);
		console.log('command: ' + phase.fn + ' ' + command);
		await page.keyboard.press('i');
		const inverted = await page.evaluate(() => window.perfrecFlame.inverted());
		const invShare = await widthShare(page, phase.fn);
		check(inverted && invShare >= 95, `inverted, ${phase.fn} is ${invShare.toFixed(1)}%`);
		await page.keyboard.press('i');
		const redraw = await page.evaluate(() => window.perfrecFlame.lastRangeMs());
		note(`range redrawn in ${redraw.toFixed(1)} ms`);
	}

	// The mouse: a drag over the heatmap's first columns selects them.
	await page.evaluate(() => window.perfrecFlame.clearRange());
	const box = await (await page.$('#heatmap')).boundingBox();
	const a = await page.evaluate(() => window.perfrecFlame.heatCell(1, 0));
	const b = await page.evaluate(() => window.perfrecFlame.heatCell(2, 49));
	await page.mouse.move(box.x + a.x, box.y + a.y);
	await page.mouse.down();
	await page.mouse.move(box.x + b.x, box.y + b.y, { steps: 5 });
	await page.mouse.up();
	const dragged = await page.evaluate(() => window.perfrecFlame.selection());
	check(dragged.range && dragged.range.sinceMs === a.startMs && dragged.range.untilMs === a.startMs + 2000,
	      `a drag over columns 1 and 2: ${JSON.stringify(dragged.range)}`);
	note(`a drag selected ${dragged.range.since} to ${dragged.range.until}`);
	await page.mouse.move(box.x + a.x, box.y + a.y);
	const readout = await page.$eval('#heat-readout', (e) => e.textContent);
	check(/Z \+ 20\.00 ms: \d+ samples/.test(readout), `the hover readout: ${readout}`);

	// A shift-drag selects the baseline instead.
	await page.evaluate(() => window.perfrecFlame.clearRange());
	await page.keyboard.down('Shift');
	await page.mouse.move(box.x + a.x, box.y + a.y);
	await page.mouse.down();
	await page.mouse.move(box.x + b.x, box.y + b.y, { steps: 5 });
	await page.mouse.up();
	await page.keyboard.up('Shift');
	const shifted = await page.evaluate(() => window.perfrecFlame.selection());
	check(shifted.baseline && shifted.baseline.sinceMs === a.startMs && !shifted.range,
	      `a shift-drag: ${JSON.stringify(shifted)}`);
	note(`a shift-drag selected the baseline ${shifted.baseline.since} to ${shifted.baseline.until}`);
	await page.evaluate(() => window.perfrecFlame.clearRange());

	// A baseline: the other phase, as "Use as baseline" takes it.
	const [one, two] = expected.phases;
	await page.evaluate((x, y) => window.perfrecFlame.selectRange(x, y), two.fromMs, two.toMs);
	await page.click('#range-baseline');
	const sel = await page.evaluate((x, y) => window.perfrecFlame.selectRange(x, y), one.fromMs, one.toMs);
	check(sel.baseline && sel.command.includes('--baseline-since'), `no baseline: ${JSON.stringify(sel)}`);
	const list = (await frames(page)).filter((f) => f.name === one.fn && !f.faded);
	check(list.length && list[0].base !== null, 'not a differential graph');
	const f = list.sort((x, y) => y.width - x.width)[0];
	const change = f.share - f.base;
	note(`against ${two.fn}'s range: ${one.fn} ${f.share.toFixed(1)}% (baseline ${f.base.toFixed(1)}%), ` +
	     `${change >= 0 ? '+' : ''}${change.toFixed(1)} points, colour ${f.color}`);
	check(change >= 90, `${one.fn} changed by ${change.toFixed(1)} points against ${two.fn}'s range`);
	const legend = await page.$eval('#legend', (e) => e.hidden ? '' : e.textContent);
	check(/baseline range/.test(legend), `the legend: ${legend}`);
	const title = await page.$eval('#title', (e) => e.textContent);
	check(/differential/.test(title), `the title: ${title}`);
	const m = /rgb\((\d+),(\d+),(\d+)\)/.exec(f.color);
	check(m && Number(m[1]) > Number(m[3]) + 80, `${one.fn} is not red: ${f.color}`);

	// For the eye: the range and its baseline.
	await page.screenshot({ path: screenshot, fullPage: true });
	check(fs.statSync(screenshot).size > 20000, 'the screenshot is nearly empty');
	const cleared = await page.evaluate(() => window.perfrecFlame.clearRange());
	check(!cleared.range && !cleared.baseline, 'ranges not cleared');
	const total = await page.evaluate(() => window.perfrecFlame.profile().totalSamples);
	note(`cleared: the whole capture again, ${total} samples`);
	return problems;
}

async function hostile(browser) {
	const { page, problems } = await open(browser);
	const time = await page.evaluate(() => window.perfrecFlame.time());
	check(time, 'the hostile page has no heatmap');
	await page.evaluate((t) => window.perfrecFlame.selectRange(t.columns[0].startMs,
		t.columns[t.columns.length - 1].startMs + 1000), time);
	const found = await page.evaluate(() => ({
		scripts: document.scripts.length,
		elements: document.querySelectorAll('img, b, i, style').length,
		keys: document.getElementById('series-keys').textContent,
		keyElements: document.getElementById('series-keys').querySelectorAll('*').length,
		keySpans: document.getElementById('series-keys').children.length,
		options: [...document.querySelectorAll('#process option')].map((o) => o.text),
	}));
	note(`series keys: ${JSON.stringify(found.keys)}`);
	check(found.scripts === 2, `${found.scripts} script elements`);
	check(found.elements === 1, `${found.elements} img/b/style elements: markup from the capture got in`);
	check(found.keyElements === 2 * found.keySpans, 'an element in the series keys beyond their swatches');
	check(found.keys.includes('</script><script>alert(1)</script>'), 'the hostile comm is not a key, as text');
	check(found.options.some((o) => o.startsWith('</script><script>alert(1)</script>')),
	      'the range\'s process list lost the hostile comm');
	return problems;
}

// Each profile (CPU, off-CPU, wall; the p key): its heatmap's weight is
// its total (samples' periods, or blocked and wall nanoseconds), a range
// of the whole capture has that total, and the range stays when the
// profile is switched.
async function profiles(browser) {
	const { page, problems } = await open(browser);
	const kinds = await page.evaluate(() => window.perfrecFlame.profiles());
	check(kinds.length === 3, `profiles ${kinds}`);
	let sel = null;
	for (let i = 0; i < kinds.length; i++) {
		const t = await page.evaluate(() => window.perfrecFlame.time());
		check(t, `no heatmap for the ${kinds[i]} profile`);
		const whole = await page.evaluate(() => window.perfrecFlame.profile());
		const weight = t.columns.reduce((sum, c) => sum + c.weight, 0);
		const expect = whole.unit === 'ns' ? whole.totalPeriod : whole.totalSamples;
		check(weight === expect, `${whole.kind}: the heatmap holds ${weight}, the profile ${expect}`);
		if (!sel)
			sel = await page.evaluate((t) => window.perfrecFlame.selectRange(t.originMs,
				t.originMs + t.columns.length * 1000), t);
		const ranged = await page.evaluate(() => ({ s: window.perfrecFlame.selection(),
							      p: window.perfrecFlame.profile() }));
		check(ranged.s.range && ranged.s.range.since === sel.range.since, `${whole.kind}: the range was not kept`);
		check(ranged.s.totalPeriod === whole.totalPeriod,
		      `${whole.kind}: the whole capture's range holds ${ranged.s.totalPeriod}, the profile ${whole.totalPeriod}`);
		check(whole.kind === 'cpu' || ranged.s.command.includes('--profile=' + whole.kind),
		      `${whole.kind}: the command ${ranged.s.command}`);
		note(`${whole.kind}: heatmap ${weight} ${whole.unit}, the range's total ${ranged.s.totalPeriod}: ${ranged.s.command}`);
		await page.keyboard.press('p');
	}
	return problems;
}

async function none(browser) {
	const { page, problems } = await open(browser);
	const r = await page.evaluate(() => ({ time: window.perfrecFlame.time(),
		hidden: document.getElementById('timeline').hidden, frames: window.perfrecFlame.frames().length }));
	check(!r.time && r.hidden, 'a heatmap for a capture without time');
	check(r.frames > 0, 'nothing drawn');
	note(`no heatmap, ${r.frames} frames drawn`);
	return problems;
}

async function command(browser, outPath) {
	const { page, problems } = await open(browser);
	const time = await page.evaluate(() => window.perfrecFlame.time());
	check(time, 'the page has no heatmap');
	const sel = await page.evaluate((a, b) => window.perfrecFlame.selectRange(a, b), time.originMs,
					time.originMs + time.slotCount * time.slotNs / 1e6);
	check(sel && sel.command, 'no range selected');
	const shown = await page.$eval('#range-command', (e) => e.textContent);
	check(shown === sel.command, `the command shown: ${shown}`);
	fs.writeFileSync(outPath, sel.command);
	note(`the command: ${JSON.stringify(sel.command)}`);
	return problems;
}

(async () => {
	let browser, status = 0;
	try {
		browser = await puppeteer.launch({
			executablePath: chromium, headless: true,
			args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions',
			       '--disable-background-networking', '--disable-sync'],
		});
		let problems;
		if (mode === 'phases')
			problems = await phases(browser, rest[0], rest[1]);
		else if (mode === 'hostile')
			problems = await hostile(browser);
		else if (mode === 'profiles')
			problems = await profiles(browser);
		else if (mode === 'none')
			problems = await none(browser);
		else if (mode === 'command')
			problems = await command(browser, rest[0]);
		else
			throw new Failure('unknown mode ' + mode);
		check(problems.length === 0, 'the page: ' + problems.join('; '));
		note(`${mode}: no console error, no request but the page itself`);
	} catch (error) {
		status = failed('heatmap-check', error);
	} finally {
		if (browser)
			await browser.close();
	}
	process.exit(status);
})();
