// SPDX-License-Identifier: GPL-2.0-or-later
//
// Drives Debian's chromium (puppeteer-core: no browser of its own) over a
// flame graph page of perfrec-report --format=html, as a person would:
// typing, clicking, hovering.  Run by tests/test-flame-html.sh:
//
//   node flame-check.js workload PAGE TOTAL SELF SCREENSHOT
//       a capture of tests/workload, burn_hot's TOTAL and SELF percent in
//       the flat view: searching burn_hot reports TOTAL within 0.5 points
//       (both count each stack through it once); a click on burn_hot zooms
//       it to the full width; Reset and Esc zoom out; the tooltip tells
//       the function, its DSO, samples and share; the inverted view has
//       burn_hot right under the process, SELF wide within 0.5 points, and
//       the same search share; the i key turns it off; the screenshots
//       (PNG, plus -zoomed and -inverted ones) are not blank
//   node flame-check.js hostile PAGE SCREENSHOT
//       names with markup: no dialog, no script or element of theirs in
//       the page, each shown as its literal text
//   node flame-check.js diff PAGE HOT_DELTA COLD_DELTA SCREENSHOT
//       a differential page (--baseline) of two captures of tests/workload
//       (--comm workload), burn_hot shrunk and burn_cold grown: the header
//       and legend say it is a comparison and name the baseline; hovering
//       burn_hot's widest frame shows both shares and a negative change,
//       and it is blue-ish, burn_cold's red-ish with a positive one;
//       inverted, burn_hot and burn_cold right under the process (their
//       self shares) change by HOT_DELTA and COLD_DELTA (the flat diff's)
//       within 0.02 points, and a hover there shows them; search still
//       matches, a click still zooms; the screenshots are not blank
//   node flame-check.js first-level PAGE NAME
//       the selector of the root's children is labelled NAME ("Unit" with
//       --sort unit), lists them, and a hover on one of them says NAME
//   node flame-check.js big PAGE MAX_MS
//       100,000 nodes and more: loaded and drawn within MAX_MS, search
//       and inversion timed too
//   node flame-check.js profiles PAGE EXPECTED SEARCH SCREENSHOT
//       a capture with off-CPU records: the page's switch lists CPU,
//       Off-CPU and Wall, the pressed button the profile shown first;
//       EXPECTED (JSON, from perfrec-report --json --profile=KIND) gives
//       each profile's total_period, total_samples and its heaviest
//       function by self weight.  Each button (a click, Enter on the
//       focused button, the p key) shows its profile without a reload:
//       the header's total says samples for CPU and time (s, ms) for the
//       others, equal to the report's; the tooltip says samples or time;
//       inverted, the widest function right under the processes (summed
//       over them) is the report's heaviest, as wide as its self share
//       within 0.05 points; the share of a search for SEARCH is of the
//       profile shown; the screenshots (one a profile) are not blank
//   node flame-check.js switch PAGE
//       a page of several profiles from a hostile capture: each shown in
//       turn, drawn, and no element or script of the capture's appears
//   node flame-check.js blocks PAGE EXPECTED SCREENSHOT
//       a real capture's page, --profile=off-cpu --waker: EXPECTED (JSON)
//       gives the report's total_period, and for each name the time of the
//       folded --waker stacks that hold a frame of that name: the page
//       opens on the off-CPU profile with that total in its header; a
//       search for each name (exact, as a regular expression) matches that
//       time to the nanosecond; a frame named EXPECTED.waker lies above a
//       "--" frame of process EXPECTED.process (zoomed to), whose tooltip
//       gives a time; the screenshot is not blank
//
// In every mode but profiles and switch, a page of one profile has no switch.
//
// Every mode fails on a console error, an uncaught exception, or any
// request but the page's own file.  Prints "flame-check: ..." notes;
// exits 1 with "flame-check: FAIL: ..." on the first failed check.
'use strict';
const fs = require('fs');
const path = require('path');
const zlib = require('zlib');
const puppeteer = require('puppeteer-core');

const [mode, page_path, ...rest] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const url = 'file://' + path.resolve(page_path);

const { Failure, check, noteAs, failed } = require('./harness');

const note = noteAs('flame-check');

// Distinct colours of a PNG as puppeteer writes it: 8-bit RGB or RGBA,
// not interlaced.  Enough of a decoder to tell a drawing from a blank.
function pngColours(buffer) {
	check(buffer.readUInt32BE(12) === 0x49484452, 'screenshot: not a PNG');
	const width = buffer.readUInt32BE(16), height = buffer.readUInt32BE(20);
	const depth = buffer[24], type = buffer[25], interlace = buffer[28];
	check(depth === 8 && (type === 2 || type === 6) && !interlace,
	      `screenshot: PNG of depth ${depth}, colour type ${type}, interlace ${interlace}`);
	const channels = type === 6 ? 4 : 3, stride = width * channels;
	const parts = [];
	for (let at = 8; at < buffer.length;) {
		const length = buffer.readUInt32BE(at), kind = buffer.toString('latin1', at + 4, at + 8);
		if (kind === 'IDAT')
			parts.push(buffer.subarray(at + 8, at + 8 + length));
		at += 12 + length;
	}
	const raw = zlib.inflateSync(Buffer.concat(parts));
	const out = Buffer.alloc(stride * height);
	const colours = new Set();
	for (let y = 0; y < height; y++) {
		const filter = raw[y * (stride + 1)];
		const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let x = 0; x < stride; x++) {
			const a = x >= channels ? out[y * stride + x - channels] : 0;
			const b = y ? out[(y - 1) * stride + x] : 0;
			const c = x >= channels && y ? out[(y - 1) * stride + x - channels] : 0;
			let v = line[x];
			if (filter === 1) v += a;
			else if (filter === 2) v += b;
			else if (filter === 3) v += (a + b) >> 1;
			else if (filter === 4) {
				const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
				v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			}
			out[y * stride + x] = v & 255;
		}
		for (let x = 0; x < stride; x += channels)
			colours.add((out[y * stride + x] << 16) | (out[y * stride + x + 1] << 8) | out[y * stride + x + 2]);
	}
	return { width, height, colours: colours.size };
}

async function open(browser) {
	const page = await browser.newPage();
	const problems = [];
	page.on('console', (message) => {
		if (message.type() === 'error' || message.type() === 'warn')
			problems.push(`console ${message.type()}: ${message.text()}`);
	});
	page.on('pageerror', (error) => problems.push('uncaught: ' + error.message));
	page.on('dialog', async (dialog) => {
		problems.push(`a ${dialog.type()} dialog: ${dialog.message()}`);
		await dialog.dismiss();
	});
	await page.setRequestInterception(true);
	page.on('request', (request) => {
		if (request.url() === url) {
			request.continue();
		} else {
			problems.push('a request for ' + request.url().slice(0, 200));
			request.abort();
		}
	});
	await page.setViewport({ width: 1280, height: 900, deviceScaleFactor: 1 });
	const begin = Date.now();
	await page.goto(url, { waitUntil: 'load' });
	await page.waitForFunction(() => window.perfrecFlame && window.perfrecFlame.ready, { timeout: 30000 });
	const loadMs = Date.now() - begin;
	return { page, problems, loadMs };
}

const frames = (page) => page.evaluate(() => window.perfrecFlame.frames());
const chartWidth = (page) => page.evaluate(() => window.perfrecFlame.width());

// Clicks (or hovers) a frame near its left end, scrolled into view first.
async function atFrame(page, frame, action) {
	const offset = { x: frame.x + Math.min(frame.width / 2, 40), y: frame.y + frame.height / 2 };
	await page.$eval('#flame', (canvas, y) => {
		const top = canvas.getBoundingClientRect().top + window.scrollY;
		window.scrollTo(0, Math.max(top + y - window.innerHeight / 2, 0));
	}, offset.y);
	const box = await (await page.$('#flame')).boundingBox();
	if (action === 'click')
		await page.mouse.click(box.x + offset.x, box.y + offset.y);
	else
		await page.mouse.move(box.x + offset.x, box.y + offset.y);
}

function widest(list, name) {
	return list.filter((f) => f.name === name && !f.faded).sort((a, b) => b.width - a.width)[0];
}

async function search(page, text) {
	await page.click('#search', { clickCount: 3 });
	await page.keyboard.press('Backspace');
	await page.type('#search', text);
	await page.keyboard.press('Enter');
	return page.$eval('#match', (e) => e.textContent);
}

// A page of one profile: no switch to show, none to press.
async function noSwitch(page) {
	const bar = await page.$eval('#profiles', (e) => ({ hidden: e.hidden, buttons: e.children.length,
							      shown: e.offsetWidth }));
	check(bar.hidden && bar.buttons === 0 && bar.shown === 0, `a profile switch on a page of one profile: ${JSON.stringify(bar)}`);
}

async function workload(browser, flatPercent, selfPercent, screenshot) {
	const { page, problems, loadMs } = await open(browser);
	await noSwitch(page);
	note(`loaded in ${loadMs} ms, ${await page.evaluate(() => window.perfrecFlame.nodeCount())} nodes`);
	const facts = await page.$eval('#facts', (e) => e.textContent);
	for (const label of ['Host', 'Kernel', 'Event', 'Time', 'Samples', 'Lost'])
		check(facts.includes(label), `the header has no ${label}: ${facts}`);
	check(/999 Hz/.test(facts), `the header does not give the sampling frequency: ${facts}`);

	const text = await search(page, 'burn_hot');
	const share = Number((/Matched: ([0-9.]+)%/.exec(text) || [])[1]);
	note(`search burn_hot: "${text}"; the flat view: ${flatPercent}%`);
	check(Math.abs(share - Number(flatPercent)) <= 0.5,
	      `search share ${share}% is not within 0.5 points of the flat view's ${flatPercent}%`);
	const shares = await page.evaluate(() => window.perfrecFlame.matched());
	check(shares && Math.abs(shares.share - share) < 0.01, 'the shown share is not the computed one');
	// A regular expression: burn_(hot|warm) is both, each sample once.
	await page.click('#regex');
	const both = Number((/Matched: ([0-9.]+)%/.exec(await search(page, '^burn_(hot|warm)$')) || [])[1]);
	note(`regex ^burn_(hot|warm)$: ${both}%`);
	check(both > share + 5 && both <= 100, `regex search: ${both}% is not more than burn_hot's ${share}%`);
	await page.click('#regex');
	await search(page, 'burn_hot');

	const width = await chartWidth(page);
	let hot = widest(await frames(page), 'burn_hot');
	check(hot, 'no burn_hot frame drawn');
	note(`burn_hot's widest frame: ${hot.width.toFixed(1)} of ${width} px`);
	await atFrame(page, hot, 'hover');
	const tip = await page.$eval('#tip', (e) => (e.hidden ? '' : e.textContent));
	note(`tooltip: ${JSON.stringify(tip)}`);
	check(tip.includes('burn_hot') && tip.includes('DSO: workload') && /Samples: \d+ \(\d+\.\d\d%\)/.test(tip),
	      'the tooltip does not give function, DSO, samples and share');
	await page.screenshot({ path: screenshot, fullPage: true });
	const png = pngColours(fs.readFileSync(screenshot));
	note(`screenshot ${screenshot}: ${png.width}x${png.height}, ${png.colours} colours`);
	check(png.colours >= 20, `the screenshot has ${png.colours} colours: blank?`);

	await atFrame(page, hot, 'click');
	const zoomed = widest(await frames(page), 'burn_hot');
	note(`after a click on burn_hot: ${zoomed.width.toFixed(1)} px wide`);
	check(Math.abs(zoomed.width - width) < 0.5, `clicked burn_hot is ${zoomed.width} px wide, not ${width}`);
	const status = await page.$eval('#status', (e) => e.textContent);
	check(status.includes('Zoomed to') && status.includes('burn_hot'), `status after the zoom: ${status}`);
	await page.screenshot({ path: screenshot.replace(/\.png$/, '-zoomed.png'), fullPage: true });

	await page.click('#reset');
	let all = (await frames(page)).find((f) => f.name === 'all');
	hot = widest(await frames(page), 'burn_hot');
	check(all && Math.abs(all.width - width) < 0.5 && !all.faded && hot.width < width - 1,
	      'Reset did not zoom out to "all"');
	// Esc zooms out too.
	await atFrame(page, hot, 'click');
	await page.$eval('#search', (e) => e.blur());
	await page.keyboard.press('Escape');
	all = (await frames(page)).find((f) => f.name === 'all');
	check(all && !all.faded, 'Esc did not zoom out');

	await page.click('#invert');
	check(await page.evaluate(() => window.perfrecFlame.inverted()), 'the Inverted box did not invert');
	const inverted = await frames(page);
	const root = inverted.filter((f) => f.depth === 2 && f.name === 'burn_hot');
	const below = inverted.find((f) => f.depth === 1 && f.name === 'workload');
	check(root.length === 1 && below, 'inverted: no burn_hot frame right under the workload process');
	note(`inverted: burn_hot right under "workload", ${(100 * root[0].width / width).toFixed(2)}% of the width, ` +
	     `computed in ${(await page.evaluate(() => window.perfrecFlame.invertMs())).toFixed(1)} ms`);
	check(Math.abs(100 * root[0].width / width - Number(selfPercent)) <= 0.5,
	      `inverted: burn_hot is not as wide as its flat self share, ${selfPercent}%`);
	const again = Number((/Matched: ([0-9.]+)%/.exec(await page.$eval('#match', (e) => e.textContent)) || [])[1]);
	check(Math.abs(again - share) < 0.01, `inverted: the search share is ${again}%, caller-first ${share}%`);
	check(root[0].y < 3 * 16, 'inverted: the leaves are not at the top');
	await page.screenshot({ path: screenshot.replace(/\.png$/, '-inverted.png'), fullPage: true });
	await page.keyboard.press('i');
	check(!(await page.evaluate(() => window.perfrecFlame.inverted())), 'the i key did not turn inversion off');
	return problems;
}

async function hostile(browser, screenshot) {
	const { page, problems } = await open(browser);
	const found = await page.evaluate(() => ({
		scripts: document.scripts.length,
		elements: document.querySelectorAll('img, b, i, style').length,
		styles: document.querySelectorAll('style').length,
		facts: document.getElementById('facts').textContent,
		title: document.title,
		options: [...document.querySelectorAll('#process option')].map((o) => o.text),
	}));
	note(`scripts ${found.scripts}, style elements ${found.styles}, title ${JSON.stringify(found.title)}`);
	check(found.scripts === 2, `${found.scripts} script elements, expected the data's and the page's`);
	check(found.elements === 1, `${found.elements} img/b/i/style elements: markup from the capture got in`);
	check(found.facts.includes('<b>host</b>&"\'</script>'), `the host is not shown literally: ${found.facts}`);
	check(found.options.some((o) => o.startsWith('</script><script>alert(1)</script>')),
	      `the process list does not show the hostile comm literally: ${JSON.stringify(found.options)}`);
	const names = new Set((await frames(page)).map((f) => f.name));
	for (const name of ['</script><script>alert(1)</script>', '<img/src=x/onerror=alert(2)>',
			    'a&b<c>"d\'e&amp;', ']]><!--x-->', 'sep\u2028ara\u2029tors', '</style><b>bold</b>'])
		check(names.has(name), `no frame named ${JSON.stringify(name)}`);
	check([...names].some((n) => n.startsWith('bad\ufffd')), 'invalid UTF-8 is not shown as U+FFFD');
	const text = await search(page, 'alert');
	note(`search alert: ${text}`);
	check(/Matched: [1-9]/.test(text), 'search finds no hostile frame');
	const frame = (await frames(page)).find((f) => f.name.startsWith('</script>') && f.depth > 1);
	await atFrame(page, frame, 'hover');
	const tip = await page.$eval('#tip', (e) => e.textContent);
	check(tip.includes('</script><script>alert(1)</script>'), `the tooltip: ${tip}`);
	await page.screenshot({ path: screenshot, fullPage: true });
	check(await page.evaluate(() => document.scripts.length) === 2, 'a script element appeared');
	return problems;
}

// "Share: 19.33% (baseline 57.22%, -37.89)" of a tooltip: [now, base, change].
function tipShares(tip) {
	const m = /Share: ([0-9.]+)% \(baseline ([0-9.]+)%, ([-+][0-9.]+)\)/.exec(tip);
	return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

// "rgb(r,g,b)": blue-ish (shrank) or red-ish (grew), clearly.
function hue(color) {
	const [r, g, b] = (/rgb\((\d+),(\d+),(\d+)\)/.exec(color) || []).slice(1).map(Number);
	return b > r + 60 ? 'blue' : r > b + 60 ? 'red' : 'neutral';
}

async function diff(browser, hotDelta, coldDelta, screenshot) {
	const { page, problems, loadMs } = await open(browser);
	note(`loaded in ${loadMs} ms, ${await page.evaluate(() => window.perfrecFlame.nodeCount())} nodes`);
	const head = await page.evaluate(() => ({
		title: document.getElementById('title').textContent,
		doc: document.title,
		facts: document.getElementById('facts').textContent,
		legend: document.getElementById('legend').hidden ? '' : document.getElementById('legend').textContent,
	}));
	note(`title ${JSON.stringify(head.title)}; legend ${JSON.stringify(head.legend)}`);
	check(/differential/.test(head.title) && /differential/.test(head.doc), 'the title does not say it is a comparison');
	check(/Baseline\d+ samples, 1 file \(.*base.*\.prf\)/.test(head.facts) && /Gone/.test(head.facts),
	      `the header does not name the baseline: ${head.facts}`);
	check(/baseline/.test(head.legend) && /grew/.test(head.legend) && /shrank/.test(head.legend),
	      'no legend of the colours');

	const width = await chartWidth(page);
	const hover = async (frame) => {
		await atFrame(page, frame, 'hover');
		return page.$eval('#tip', (e) => (e.hidden ? '' : e.textContent));
	};
	const hot = widest(await frames(page), 'burn_hot'), cold = widest(await frames(page), 'burn_cold');
	check(hot && cold, 'no burn_hot or burn_cold frame drawn');
	let tip = await hover(hot);
	note(`burn_hot tooltip: ${JSON.stringify(tip)}, colour ${hot.color}`);
	let shares = tipShares(tip);
	check(shares && shares[2] < 0 && shares[1] > shares[0], 'the burn_hot tooltip shows no shrinkage');
	check(Math.abs(shares[2] - (hot.share - hot.base)) < 0.006, 'the tooltip\'s change is not the frame\'s');
	check(hue(hot.color) === 'blue', `burn_hot is ${hot.color}, not blue-ish`);
	tip = await hover(cold);
	note(`burn_cold tooltip: ${JSON.stringify(tip)}, colour ${cold.color}`);
	shares = tipShares(tip);
	check(shares && shares[2] > 0, 'the burn_cold tooltip shows no growth');
	check(hue(cold.color) === 'red', `burn_cold is ${cold.color}, not red-ish`);
	const all = (await frames(page)).find((f) => f.name === 'all');
	check(all && hue(all.color) === 'neutral' && Math.abs(all.share - all.base) < 1e-9, 'the root is not unchanged');
	await atFrame(page, hot, 'hover');
	await page.screenshot({ path: screenshot, fullPage: true });
	const png = pngColours(fs.readFileSync(screenshot));
	note(`screenshot ${screenshot}: ${png.width}x${png.height}, ${png.colours} colours`);
	check(png.colours >= 20, `the screenshot has ${png.colours} colours: blank?`);

	const text = await search(page, 'burn_hot');
	check(/Matched: [1-9]/.test(text), `search burn_hot: ${text}`);
	await search(page, '');
	await atFrame(page, cold, 'click');
	const zoomed = widest(await frames(page), 'burn_cold');
	check(Math.abs(zoomed.width - width) < 0.5 && zoomed.color === cold.color,
	      'a click on burn_cold does not zoom it, or changes its colour');
	await page.keyboard.press('Escape');

	await page.click('#invert');
	const inverted = await frames(page);
	for (const [name, expected] of [['burn_hot', hotDelta], ['burn_cold', coldDelta]]) {
		const f = inverted.find((g) => g.depth === 2 && g.name === name);
		check(f, `inverted: no ${name} right under the process`);
		const change = f.share - f.base;
		note(`inverted: ${name} ${f.share.toFixed(2)}% (baseline ${f.base.toFixed(2)}%, ${change.toFixed(2)}), ` +
		     `the flat diff ${expected}`);
		check(Math.abs(change - Number(expected)) <= 0.02,
		      `inverted: ${name} changed by ${change.toFixed(2)}, the flat diff says ${expected}`);
		const shown = tipShares(await hover(f));
		check(shown && Math.abs(shown[2] - Number(expected)) <= 0.02,
		      `inverted: the ${name} tooltip says ${JSON.stringify(shown)}`);
	}
	await page.screenshot({ path: screenshot.replace(/\.png$/, '-inverted.png'), fullPage: true });
	return problems;
}

async function firstLevel(browser, name) {
	const { page, problems } = await open(browser);
	await noSwitch(page);
	const label = await page.$eval('#first-level', (e) => e.textContent);
	const options = await page.$$eval('#process option', (list) => list.map((o) => o.text));
	note(`the selector: ${JSON.stringify(label)}, ${options.length - 1} choices: ${JSON.stringify(options.slice(1, 4))}`);
	check(label === name, `the selector is labelled ${JSON.stringify(label)}, expected ${JSON.stringify(name)}`);
	check(options.length > 1, 'the selector lists nothing but "all"');
	const frame = (await frames(page)).filter((f) => f.depth === 1).sort((a, b) => b.width - a.width)[0];
	check(frame, 'no frame right under the root');
	await atFrame(page, frame, 'hover');
	const tip = await page.$eval('#tip', (e) => e.textContent);
	note(`hover on ${JSON.stringify(frame.name)}: ${tip}`);
	check(tip.startsWith(frame.name + name), `the tooltip of ${frame.name} does not say ${name}: ${tip}`);
	return problems;
}

// "1.234 s", "12.34 ms", "5.6 µs", "12 ns" in nanoseconds, with the step of its last digit.
function parseDuration(text) {
	const m = /([0-9]+(?:\.[0-9]+)?) (s|ms|µs|ns)\b/.exec(text);
	if (!m)
		return null;
	const scale = { s: 1e9, ms: 1e6, 'µs': 1e3, ns: 1 }[m[2]];
	const decimals = (m[1].split('.')[1] || '').length;
	return { ns: Number(m[1]) * scale, step: scale / Math.pow(10, decimals) };
}

async function profiles(browser, expectedPath, searchText, screenshot) {
	const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
	const { page, problems, loadMs } = await open(browser);
	const kinds = await page.evaluate(() => window.perfrecFlame.profiles());
	note(`loaded in ${loadMs} ms; profiles ${JSON.stringify(kinds)}`);
	check(JSON.stringify(kinds) === JSON.stringify(['cpu', 'off-cpu', 'wall']), `the page's profiles are ${JSON.stringify(kinds)}`);
	const buttons = await page.$$eval('#profiles button', (list) => list.map((b) => ({
		text: b.textContent, pressed: b.getAttribute('aria-pressed'), kind: b.dataset.kind })));
	note(`the switch: ${JSON.stringify(buttons)}`);
	check(!(await page.$eval('#profiles', (e) => e.hidden)) && buttons.length === 3, 'no switch of three profiles');
	check(JSON.stringify(buttons.map((b) => b.text)) === '["CPU","Off-CPU","Wall"]', 'the buttons are not CPU, Off-CPU, Wall');
	const first = (await page.evaluate(() => window.perfrecFlame.profile())).kind;
	check(first === expected.first, `shown first: ${first}, --profile asked for ${expected.first}`);
	check(buttons.filter((b) => b.pressed === 'true').map((b) => b.kind).join() === first,
	      'the pressed button is not the profile shown');
	const width = await chartWidth(page);
	// Each way of switching once: a click, Enter on a focused button, the p key.
	const order = [['off-cpu', 'click'], ['wall', 'enter'], ['cpu', 'p']];
	let searchShares = {};
	for (const [kind, how] of order) {
		const index = kinds.indexOf(kind);
		// Gone if the page reloaded.
		await page.evaluate(() => { window.perfrecSwitchMark = 1; });
		if (how === 'click') {
			await page.click(`#profiles button[data-kind="${kind}"]`);
		} else if (how === 'enter') {
			await page.focus(`#profiles button[data-kind="${kind}"]`);
			await page.keyboard.press('Enter');
		} else {
			await page.$eval('#search', (e) => e.blur());
			let guard = 0;
			while ((await page.evaluate(() => window.perfrecFlame.profile())).kind !== kind && guard++ < 3)
				await page.keyboard.press('p');
		}
		const shown = await page.evaluate(() => window.perfrecFlame.profile());
		check(shown.kind === kind, `${how}: ${shown.kind} shown, not ${kind}`);
		check(await page.evaluate(() => window.perfrecSwitchMark === 1), `${how}: the page reloaded`);
		const pressed = await page.$$eval('#profiles button', (list) => list.filter((b) => b.getAttribute('aria-pressed') === 'true').map((b) => b.dataset.kind));
		check(pressed.join() === kind, `${how}: pressed ${pressed.join()}, shown ${kind}`);
		const want = expected.profiles[kind];
		check(shown.totalPeriod === want.total_period && shown.totalSamples === want.total_samples,
		      `${kind}: the page's totals ${shown.totalPeriod}, ${shown.totalSamples} are not the report's ` +
		      `${want.total_period}, ${want.total_samples}`);
		const facts = await page.$eval('#facts', (e) => [...e.children].map((d) => [d.children[0].textContent, d.children[1].textContent]));
		const title = await page.$eval('#title', (e) => e.textContent);
		if (kind === 'cpu') {
			const samples = facts.find((f) => f[0] === 'Samples');
			check(samples && Number(samples[1].split(' ')[0]) === want.header_samples,
			      `cpu: the header's Samples ${JSON.stringify(samples)} are not the report's ${want.header_samples}`);
			note(`cpu: header Samples ${samples[1]}; title ${JSON.stringify(title)}`);
		} else {
			const label = kind === 'off-cpu' ? 'Off-CPU' : 'Wall';
			const total = facts.find((f) => f[0] === label);
			const time = total && parseDuration(total[1]);
			check(time && Math.abs(time.ns - want.total_period) <= time.step,
			      `${kind}: the header's ${label} ${JSON.stringify(total)} is not the report's ${want.total_period} ns`);
			check(!facts.some((f) => f[0] === 'Samples'), `${kind}: the header still gives CPU samples`);
			note(`${kind}: header ${label} "${total[1]}" (the report: ${want.total_period} ns); title ${JSON.stringify(title)}`);
		}
		check(title.endsWith(': ' + buttons[index].text), `${kind}: the title ${JSON.stringify(title)}`);
		// The leaves: the inverted view, widest function right under the processes.
		if (!(await page.evaluate(() => window.perfrecFlame.inverted())))
			await page.click('#invert');
		const byName = new Map();
		for (const f of await frames(page))
			if (f.depth === 2 && !f.faded)
				byName.set(f.name, (byName.get(f.name) || 0) + f.share);
		const top = [...byName.entries()].sort((a, b) => b[1] - a[1])[0];
		note(`${kind}: inverted, the widest leaf ${JSON.stringify(top)}; the report's heaviest ` +
		     `${JSON.stringify([want.top, want.top_percent])}`);
		check(top && top[0] === want.top, `${kind}: the widest leaf is ${top && top[0]}, the report says ${want.top}`);
		check(Math.abs(top[1] - want.top_percent) <= 0.05, `${kind}: ${want.top} is ${top[1]}% wide, the report says ${want.top_percent}%`);
		const leaf = (await frames(page)).filter((f) => f.depth === 2 && f.name === want.top).sort((a, b) => b.width - a.width)[0];
		await atFrame(page, leaf, 'hover');
		const tip = await page.$eval('#tip', (e) => (e.hidden ? '' : e.textContent));
		note(`${kind}: tooltip ${JSON.stringify(tip)}`);
		check(kind === 'cpu' ? /Samples: \d+ \(\d+\.\d\d%\)/.test(tip) : /: [0-9.]+ (s|ms|µs|ns) \(\d+\.\d\d%\)/.test(tip),
		      `${kind}: the tooltip does not give ${kind === 'cpu' ? 'samples' : 'time'}`);
		await page.click('#invert');
		const text = await search(page, searchText);
		const matched = await page.evaluate(() => window.perfrecFlame.matched());
		searchShares[kind] = matched ? matched.share : 0;
		check(kind === 'cpu' ? /Matched: [0-9.]+% \(\d+ samples\)/.test(text) : /Matched: [0-9.]+% \([0-9.]+ (s|ms|µs|ns)\)/.test(text),
		      `${kind}: the search says ${JSON.stringify(text)}`);
		check(matched && Math.abs(100 * matched.period / want.total_period - matched.share) < 1e-6,
		      `${kind}: the search share is not of this profile's total`);
		note(`${kind}: search ${searchText}: ${text}`);
		await search(page, '');
		const shot = screenshot.replace(/\.png$/, '-' + kind + '.png');
		await page.screenshot({ path: shot, fullPage: true });
		const png = pngColours(fs.readFileSync(shot));
		note(`screenshot ${shot}: ${png.width}x${png.height}, ${png.colours} colours`);
		check(png.colours >= 20, `the screenshot has ${png.colours} colours: blank?`);
		const all = (await frames(page)).find((f) => f.name === 'all');
		check(all && Math.abs(all.width - width) < 0.5, `${kind}: "all" is not the full width`);
	}
	check(new Set(Object.values(searchShares).map((s) => s.toFixed(3))).size > 1,
	      `the search shares ${JSON.stringify(searchShares)} do not change with the profile`);
	return problems;
}

async function switchAll(browser) {
	const { page, problems } = await open(browser);
	const kinds = await page.evaluate(() => window.perfrecFlame.profiles());
	check(kinds.length > 1, `one profile only: ${JSON.stringify(kinds)}`);
	for (const kind of kinds) {
		await page.click(`#profiles button[data-kind="${kind}"]`);
		const shown = await page.evaluate(() => window.perfrecFlame.profile());
		const drawn = (await frames(page)).length;
		const facts = await page.$eval('#facts', (e) => e.textContent);
		note(`${kind}: ${drawn} frames drawn, total ${shown.totalPeriod} (${shown.unit}); ${facts.slice(0, 160)}`);
		check(shown.kind === kind && drawn >= 1, `${kind}: not shown`);
		await page.click('#invert');
		await page.click('#invert');
	}
	const found = await page.evaluate(() => ({
		scripts: document.scripts.length,
		elements: document.querySelectorAll('img, b, i, iframe, object').length,
	}));
	check(found.scripts === 2 && found.elements === 0, `markup from the capture got in: ${JSON.stringify(found)}`);
	return problems;
}

async function blocks(browser, expectedPath, screenshot) {
	const expected = JSON.parse(fs.readFileSync(expectedPath, 'utf8'));
	const { page, problems, loadMs } = await open(browser);
	const shown = await page.evaluate(() => window.perfrecFlame.profile());
	note(`loaded in ${loadMs} ms; profiles ${JSON.stringify(await page.evaluate(() => window.perfrecFlame.profiles()))}, ` +
	     `shown ${shown.kind}, ${shown.totalPeriod} ns`);
	check(shown.kind === 'off-cpu', `the page opens on ${shown.kind}, --profile=off-cpu asked for off-cpu`);
	check(shown.totalPeriod === expected.total_period,
	      `the page's total ${shown.totalPeriod} ns is not the report's ${expected.total_period} ns`);
	const facts = await page.$eval('#facts', (e) => [...e.children].map((d) => [d.children[0].textContent, d.children[1].textContent]));
	const total = facts.find((f) => f[0] === 'Off-CPU');
	const time = total && parseDuration(total[1]);
	check(time && Math.abs(time.ns - expected.total_period) <= time.step,
	      `the header's Off-CPU ${JSON.stringify(total)} is not the report's ${expected.total_period} ns`);
	await page.click('#regex');
	for (const [name, period] of Object.entries(expected.names)) {
		const text = await search(page, '^' + name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') + '$');
		const matched = await page.evaluate(() => window.perfrecFlame.matched());
		note(`search ${name}: ${text}; the folded stacks: ${period} ns`);
		check(period > 0, `${name}: no time in the folded stacks`);
		check(matched && matched.period === period, `${name}: the page matches ${matched && matched.period} ns, the folded stacks ${period} ns`);
	}
	await search(page, '');
	await page.click('#regex');
	// Zoomed to the workload's process: its stacks wide enough to read.
	const process = (await frames(page)).filter((f) => f.depth === 1 && f.name === expected.process)
		.sort((a, b) => b.width - a.width)[0];
	check(process, `no frame of process ${expected.process}`);
	await atFrame(page, process, 'click');
	const drawn = await frames(page);
	const wakes = drawn.filter((f) => f.name === '--');
	const above = drawn.filter((f) => f.name === expected.waker && wakes.some((w) =>
		f.depth > w.depth && f.x >= w.x - 0.5 && f.x + f.width <= w.x + w.width + 0.5));
	note(`${wakes.length} "--" frames drawn, ${above.length} ${expected.waker} frames above one`);
	check(above.length > 0, `no ${expected.waker} frame above a "--" frame`);
	const widest = wakes.sort((a, b) => b.width - a.width)[0];
	await atFrame(page, widest, 'hover');
	const tip = await page.$eval('#tip', (e) => (e.hidden ? '' : e.textContent));
	note(`the widest "--": ${JSON.stringify(tip)}`);
	check(/^--/.test(tip) && /[0-9.]+ (s|ms|µs|ns) \(\d+\.\d\d%\)/.test(tip), `the tooltip of "--" gives no time: ${tip}`);
	await page.screenshot({ path: screenshot, fullPage: true });
	const png = pngColours(fs.readFileSync(screenshot));
	note(`screenshot ${screenshot}: ${png.width}x${png.height}, ${png.colours} colours`);
	check(png.colours >= 20, `the screenshot has ${png.colours} colours: blank?`);
	return problems;
}

async function big(browser, maxMs) {
	const { page, problems, loadMs } = await open(browser);
	const info = await page.evaluate(() => ({
		nodes: window.perfrecFlame.nodeCount(),
		timings: window.perfrecFlame.timings,
		drawn: window.perfrecFlame.frames().length,
	}));
	const t = info.timings;
	note(`${info.nodes} nodes: loaded and drawn in ${loadMs} ms (parse ${t.parse.toFixed(0)} ms, ` +
	     `tree ${t.build.toFixed(0)} ms, first draw ${t.firstDraw.toFixed(0)} ms, ${info.drawn} frames drawn)`);
	check(info.nodes >= 100000, `only ${info.nodes} nodes`);
	check(loadMs <= maxMs, `${loadMs} ms to load and draw, more than ${maxMs}`);
	let begin = Date.now();
	const text = await search(page, 'fn_0123');
	note(`search fn_0123: ${text} in ${Date.now() - begin} ms`);
	check(/Matched: [0-9.]*[1-9]/.test(text), 'the search matched nothing');
	const deep = (await frames(page)).filter((f) => f.depth === 3).sort((a, b) => b.width - a.width)[0];
	check(deep, 'no frame drawn 3 deep');
	begin = Date.now();
	await atFrame(page, deep, 'click');
	const zoomed = await page.evaluate(() => ({ ms: window.perfrecFlame.lastDrawMs(), drawn: window.perfrecFlame.frames().length }));
	note(`zoom into ${deep.name}: ${Date.now() - begin} ms with the click, ${zoomed.ms.toFixed(1)} ms to draw ${zoomed.drawn} frames`);
	begin = Date.now();
	await page.click('#invert');
	const invertMs = Date.now() - begin;
	const inverted = await page.evaluate(() => ({ nodes: window.perfrecFlame.nodeCount(), ms: window.perfrecFlame.invertMs() }));
	note(`inverted: ${inverted.nodes} nodes, built in ${inverted.ms.toFixed(0)} ms, ${invertMs} ms with the click and the draw`);
	check(invertMs <= maxMs, `inverting took ${invertMs} ms`);
	return problems;
}

(async () => {
	let browser;
	let status = 0;
	try {
		browser = await puppeteer.launch({
			executablePath: chromium,
			headless: true,
			// Root in a container: no sandbox.  No GPU, no first-run chatter.
			args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-extensions',
			       '--disable-background-networking', '--disable-sync'],
		});
		note(`${await browser.version()}, puppeteer-core ${require('puppeteer-core/package.json').version}`);
		let problems;
		if (mode === 'workload')
			problems = await workload(browser, rest[0], rest[1], rest[2]);
		else if (mode === 'hostile')
			problems = await hostile(browser, rest[0]);
		else if (mode === 'diff')
			problems = await diff(browser, rest[0], rest[1], rest[2]);
		else if (mode === 'first-level')
			problems = await firstLevel(browser, rest[0]);
		else if (mode === 'big')
			problems = await big(browser, Number(rest[0]));
		else if (mode === 'switch')
			problems = await switchAll(browser);
		else if (mode === 'blocks')
			problems = await blocks(browser, rest[0], rest[1]);
		else if (mode === 'profiles')
			problems = await profiles(browser, rest[0], rest[1], rest[2]);
		else
			throw new Failure('unknown mode ' + mode);
		check(problems.length === 0, 'the page: ' + problems.join('; '));
		note(`${mode}: no console error, no request but the page itself`);
	} catch (error) {
		status = failed('flame-check', error);
	} finally {
		if (browser)
			await browser.close();
	}
	process.exit(status);
})();
