/*
 * The flame graph page of perfrec-report --format=html (flame-html.c
 * writes this file into the page after the data; the data's format is
 * described there).
 *
 * Drawn on one canvas: a DOM element a frame would not stay responsive
 * with the hundreds of thousands of nodes of a system-wide capture.  Each
 * draw lays out only the frames at least MIN_WIDTH pixels wide (children
 * are sorted heaviest first, so the first narrow child ends its row), and
 * only those are hit-tested.
 *
 * Names come from the profiled machine and are untrusted: they reach the
 * page through textContent, option.text and fillText only.
 *
 * Against a baseline (a profile's baseline) the page is a differential
 * flame graph: widths are this profile's, colours the change of each
 * frame's share against the baseline's (diffColor(), as
 * flame_diff_color() in flame-common.c), and the tooltip gives both
 * shares.  Each tree carries the baseline's period of every node, the
 * inverted one too.
 *
 * A capture with off-CPU records gives the page several profiles (CPU,
 * off-CPU, wall): one set of names, a tree each.  The switch above the
 * chart (or the p key) shows another without a reload: its tree (built
 * at its first showing), header, process list, search share and units.
 * A profile's unit is "samples" (the CPU's: sample counts shown, widths
 * by period) or "ns" (blocked or wall time, shown as time).
 */
'use strict';
(function () {
	const ROW = 16;			/* a frame's height with its gap, CSS pixels */
	const MIN_WIDTH = 1;		/* narrower frames are not drawn */
	const FONT = '12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';
	const KERNEL = 1, INLINED = 2, RESOLVED = 4, COMM = 8;
	const MATCH_COLOR = '#d946ef';

	const started = performance.now();
	const $ = (id) => document.getElementById(id);
	const data = JSON.parse($('flame-data').textContent);
	const strings = data.strings;
	const symbols = data.symbols;	/* name, dso, srcline, flags, offset */
	const symbolCount = symbols.length / 5;
	const profiles = data.profiles;
	/* The root's children: processes, or units, containers, cgroups (--sort). */
	const firstLevel = typeof data.first_level === 'string' ? data.first_level : 'Process';
	const parsed = performance.now();
	/* The profile shown, and its baseline (null: not a differential graph). */
	let P = null, diff = null;

	const canvas = $('flame');
	const chart = $('chart');
	const tip = $('tip');
	const ctx = canvas.getContext('2d');

	/* ---- trees ---------------------------------------------------- */

	/*
	 * A tree is typed arrays indexed by node (0 is the root), and each
	 * node's children as a range first..first+count of kids, heaviest
	 * first.
	 */
	function newTree(n) {
		return {
			n: n,
			sym: new Int32Array(n), parent: new Int32Array(n), depth: new Int32Array(n),
			total: new Float64Array(n), self: new Float64Array(n),
			samples: new Float64Array(n), selfSamples: new Float64Array(n),
			base: new Float64Array(n), baseSelf: new Float64Array(n),
			first: new Int32Array(n), count: new Int32Array(n),
			kids: new Int32Array(Math.max(n - 1, 0)), maxDepth: 0,
		};
	}

	/*
	 * The symbols a differential page's nodes use: the baseline's only
	 * stacks come with symbols of their own, equal in content to this
	 * profile's; each is mapped to the first of its kind, so that the
	 * inverted tree merges their stacks.
	 */
	function canonicalSymbols() {
		const canon = new Int32Array(symbolCount);
		const seen = new Map();
		for (let s = 0; s < symbolCount; s++) {
			const o = s * 5;
			const key = [str(symbols[o]), str(symbols[o + 1]), str(symbols[o + 2]),
				     symbols[o + 3], str(symbols[o + 4])].join('\u0000');
			const first = seen.get(key);
			canon[s] = first === undefined ? s : first;
			if (first === undefined)
				seen.set(key, s);
		}
		return canon;
	}

	let canonical = null;

	/* A profile's embedded tree: stride numbers a node, preorder, with its child count. */
	function callerTree(p) {
		const pdiff = p.baseline || null;
		const STRIDE = pdiff ? 8 : 6;
		const nodes = p.nodes;
		const n = nodes.length / STRIDE;
		const t = newTree(n);
		const open = [], left = [];
		const canon = pdiff ? canonical || (canonical = canonicalSymbols()) : null;
		let next = 0;

		for (let i = 0; i < n; i++) {
			const o = i * STRIDE;

			while (left.length && left[left.length - 1] === 0) {
				open.pop();
				left.pop();
			}
			t.sym[i] = canon && nodes[o] >= 0 ? canon[nodes[o]] : nodes[o];
			t.total[i] = nodes[o + 2];
			t.self[i] = nodes[o + 3];
			t.samples[i] = nodes[o + 4];
			t.selfSamples[i] = nodes[o + 5];
			if (pdiff) {
				t.base[i] = nodes[o + 6];
				t.baseSelf[i] = nodes[o + 7];
			}
			if (open.length) {
				const p = open[open.length - 1];

				t.parent[i] = p;
				t.depth[i] = t.depth[p] + 1;
				t.kids[t.first[p] + t.count[p]++] = i;
				left[left.length - 1]--;
				if (t.depth[i] > t.maxDepth)
					t.maxDepth = t.depth[i];
			} else {
				t.parent[i] = -1;
			}
			t.first[i] = next;
			next += nodes[o + 1];
			open.push(i);
			left.push(nodes[o + 1]);
		}
		return t;
	}

	/*
	 * The inverted (callee) tree, as perfrec-report --view=tree --callee
	 * builds it: per process, each stack leaf first.  A node's self
	 * samples in the caller tree are the stacks that end there, so each
	 * such node gives one stack: its path up to its process, walked from
	 * the node up.  Like the C tree, a node's self is the stacks whose
	 * leaf it is (the level right below the process).  The baseline's
	 * self periods give its stacks the same way (the page has all of
	 * them, those this profile lacks with no width).
	 */
	function invertedTree(c) {
		const S = symbolCount + 1;
		const index = new Map();
		const sym = [-1], parent = [-1], depth = [0];
		const total = [c.total[0]], self = [0], samples = [c.samples[0]], selfSamples = [0];
		const base = [c.base[0]], baseSelf = [0];
		const top = new Int32Array(c.n);

		function child(p, s) {
			const key = p * S + s + 1;
			let k = index.get(key);

			if (k === undefined) {
				k = sym.length;
				index.set(key, k);
				sym.push(s);
				parent.push(p);
				depth.push(depth[p] + 1);
				total.push(0);
				self.push(0);
				samples.push(0);
				selfSamples.push(0);
				base.push(0);
				baseSelf.push(0);
			}
			return k;
		}

		for (let i = 1; i < c.n; i++) {
			const p = c.parent[i];

			if (p === 0) {
				top[i] = child(0, c.sym[i]);
				continue;
			}
			top[i] = top[p];
			const w = c.self[i], ws = c.selfSamples[i], bw = c.baseSelf[i];
			if (!w && !ws && !bw)
				continue;
			let k = top[i];
			total[k] += w;
			samples[k] += ws;
			base[k] += bw;
			for (let m = i; c.depth[m] >= 2; m = c.parent[m]) {
				k = child(k, c.sym[m]);
				total[k] += w;
				samples[k] += ws;
				base[k] += bw;
				if (m === i) {
					self[k] += w;
					selfSamples[k] += ws;
					baseSelf[k] += bw;
				}
			}
		}
		const t = newTree(sym.length);
		t.sym.set(sym);
		t.parent.set(parent);
		t.depth.set(depth);
		t.total.set(total);
		t.self.set(self);
		t.samples.set(samples);
		t.selfSamples.set(selfSamples);
		t.base.set(base);
		t.baseSelf.set(baseSelf);
		for (let i = 1; i < t.n; i++) {
			t.count[t.parent[i]]++;
			if (t.depth[i] > t.maxDepth)
				t.maxDepth = t.depth[i];
		}
		for (let i = 0, next = 0; i < t.n; i++) {
			t.first[i] = next;
			next += t.count[i];
			t.count[i] = 0;
		}
		for (let i = 1; i < t.n; i++)
			t.kids[t.first[t.parent[i]] + t.count[t.parent[i]]++] = i;
		const heaviest = (a, b) => t.total[b] - t.total[a] || t.sym[a] - t.sym[b];
		for (let i = 0; i < t.n; i++)
			if (t.count[i] > 1)
				t.kids.subarray(t.first[i], t.first[i] + t.count[i]).sort(heaviest);
		return t;
	}

	/* A profile's trees, the caller-first one built at its first showing. */
	function trees(p) {
		if (!p.trees) {
			p.trees = { caller: callerTree(p), inverted: null };
			p.nodes = null;
		}
		return p.trees;
	}

	const shown = Math.min(Math.max(Number(data.shown) || 0, 0), profiles.length - 1);
	P = profiles[shown];
	diff = P.baseline || null;
	trees(P);
	const built = performance.now();
	let invertMs = 0;

	const state = { inverted: !!data.inverted, zoom: 0, match: null };
	/*
	 * Time (the heatmap's): the range shown and the baseline, in slots;
	 * the profile they were cut from (P0); the heatmap's view, k base
	 * columns a column from base column first.
	 */
	const range = { sel: null, base: null, P0: null, anchor: null, drag: null };
	const hview = { first: 0, k: 1, count: 0, zoomed: false, zoomAt: 0, max: 1 };

	function tree() {
		const t = trees(P);
		if (state.inverted && !t.inverted) {
			const t0 = performance.now();
			t.inverted = invertedTree(t.caller);
			invertMs = performance.now() - t0;
		}
		return state.inverted ? t.inverted : t.caller;
	}

	/* ---- names and colours --------------------------------------- */

	function str(i) {
		return i >= 0 ? strings[i] : null;
	}

	function nameOf(t, n) {
		return n === 0 ? 'all' : str(symbols[t.sym[n] * 5]);
	}

	/* As flame_color() in flame-common.c, so the SVG looks the same. */
	function hsl(hue, s, l) {
		const a = s * Math.min(l, 1 - l);
		const channel = (shift) => {
			const k = (hue / 30 + shift) % 12;
			const v = Math.max(-1, Math.min(k - 3, 9 - k, 1));
			return Math.floor((l - a * v) * 255 + 0.5);
		};
		return 'rgb(' + channel(0) + ',' + channel(8) + ',' + channel(4) + ')';
	}

	const encoder = new TextEncoder();
	const colors = new Array(symbolCount), muted = new Array(symbolCount);

	function colorOf(s, mute) {
		if (s < 0)
			return '#c8ccd4';
		if (colors[s] === undefined) {
			const name = str(symbols[s * 5]), flags = symbols[s * 5 + 3];
			let h = 2166136261;
			for (const b of encoder.encode(name))
				h = Math.imul(h ^ b, 16777619) >>> 0;
			let hue, sat, light;
			if (flags & COMM) {
				hue = 210; sat = 0.15; light = 0.70 + (h % 8) / 100;
			} else if (name.charAt(0) === '[' || name === '--') {
				hue = 0; sat = 0; light = 0.72 + (h % 6) / 100;
			} else if (flags & KERNEL) {
				hue = 195 + h % 30; sat = 0.50 + ((h >>> 8) % 20) / 100; light = 0.62 + ((h >>> 16) % 12) / 100;
			} else {
				hue = 5 + h % 50; sat = 0.75 + ((h >>> 8) % 20) / 100; light = 0.55 + ((h >>> 16) % 12) / 100;
			}
			colors[s] = hsl(hue, sat, light);
			muted[s] = hsl(hue, sat * 0.15, 0.82);
		}
		return mute ? muted[s] : colors[s];
	}

	/*
	 * A differential frame's colour, as flame_diff_color(): the change of
	 * its share (each side's of its own total) from light grey to red for
	 * growth, to blue for shrinkage, full at diff.scale points; full red
	 * for a stack the baseline does not have.
	 */
	const NEUTRAL = [224, 224, 224], GROWN = [232, 62, 48], SHRUNK = [52, 108, 232];

	function share(part, whole) {
		return whole ? 100 * part / whole : 0;
	}

	function delta(t, n) {
		return share(t.total[n], P.total_period) - share(t.base[n], diff.total_period);
	}

	function diffColor(t, n) {
		const d = delta(t, n);
		let k = Math.min(Math.abs(d) / diff.scale, 1), end = d < 0 ? SHRUNK : GROWN;
		if (!t.base[n]) {
			k = 1;
			end = GROWN;
		}
		const c = (i) => Math.floor(NEUTRAL[i] + (end[i] - NEUTRAL[i]) * k + 0.5);
		return 'rgb(' + c(0) + ',' + c(1) + ',' + c(2) + ')';
	}

	/* "19.33% (baseline 57.22%, -37.89)", as flame_diff_text(). */
	function diffText(t, n) {
		const now = percent(t.total[n], P.total_period);
		if (!t.base[n])
			return now + ' (new: not in the baseline)';
		const d = delta(t, n);
		return now + ' (baseline ' + percent(t.base[n], diff.total_period) + ', ' +
			(d >= 0 ? '+' : '') + d.toFixed(2) + ')';
	}

	/* ---- layout and drawing -------------------------------------- */

	/*
	 * The frames of the last draw: node, x, width, depth, and whether it
	 * is an ancestor of the zoomed frame (drawn full width, faded).  Per
	 * depth in x order (a preorder visits each row left to right), for
	 * hit-testing by binary search.
	 */
	let frames = { node: [], x: [], w: [], depth: [], faded: [], byDepth: [], rows: 0, clipped: false };
	let charWidth = 7.2;
	let lastDrawMs = 0;

	function layout(t, width) {
		const f = { node: [], x: [], w: [], depth: [], faded: [], byDepth: [], rows: 0, clipped: false };
		const dpr = window.devicePixelRatio || 1;
		/* A canvas taller than 32767 device pixels is not drawn at all. */
		const maxRows = Math.floor(32000 / (ROW * dpr));
		const add = (n, x, w, faded) => {
			const d = t.depth[n], i = f.node.length;
			f.node.push(n);
			f.x.push(x);
			f.w.push(w);
			f.depth.push(d);
			f.faded.push(faded);
			(f.byDepth[d] || (f.byDepth[d] = [])).push(i);
			if (d + 1 > f.rows)
				f.rows = d + 1;
		};
		const chain = [];
		for (let a = t.parent[state.zoom]; a !== -1; a = t.parent[a])
			chain.push(a);
		for (let k = chain.length - 1; k >= 0; k--)
			add(chain[k], 0, width, true);
		const scale = width / (t.total[state.zoom] || 1);
		const stack = [state.zoom], xs = [0];
		while (stack.length) {
			const n = stack.pop(), x = xs.pop();
			add(n, x, n === state.zoom ? width : t.total[n] * scale, false);
			if (t.depth[n] + 1 >= maxRows) {
				f.clipped = f.clipped || t.count[n] > 0;
				continue;
			}
			const first = t.first[n], end = first + t.count[n];
			let last = first;
			while (last < end && t.total[t.kids[last]] * scale >= MIN_WIDTH)
				last++;
			/* Pushed right to left, so that the leftmost is laid out first. */
			let right = x;
			for (let k = first; k < last; k++)
				right += t.total[t.kids[k]] * scale;
			for (let k = last - 1; k >= first; k--) {
				right -= t.total[t.kids[k]] * scale;
				stack.push(t.kids[k]);
				xs.push(right);
			}
		}
		return f;
	}

	/* The name cut to fit chars characters, with an ellipsis. */
	function fit(name, chars) {
		if (name.length <= chars)
			return name;
		return chars > 1 ? name.slice(0, chars - 1) + '\u2026' : '';
	}

	function frameTop(depth) {
		return state.inverted ? depth * ROW : (frames.rows - 1 - depth) * ROW;
	}

	function draw() {
		const begin = performance.now();
		const t = tree();
		const width = Math.max(chart.clientWidth, 100);
		const dpr = window.devicePixelRatio || 1;

		frames = layout(t, width);
		const height = Math.max(frames.rows, 1) * ROW;
		canvas.width = Math.round(width * dpr);
		canvas.height = Math.round(height * dpr);
		canvas.style.height = height + 'px';
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, width, height);
		ctx.font = FONT;
		ctx.textBaseline = 'middle';
		charWidth = ctx.measureText('mmmmmmmmmm').width / 10 || 7.2;
		const matching = state.match !== null;
		for (let i = 0; i < frames.node.length; i++) {
			const n = frames.node[i], x = frames.x[i], w = frames.w[i];
			const y = frameTop(frames.depth[i]);
			const s = n === 0 ? -1 : t.sym[n];
			const hit = matching && s >= 0 && state.match[s];

			ctx.globalAlpha = frames.faded[i] ? 0.55 : 1;
			ctx.fillStyle = hit ? MATCH_COLOR : diff && !matching ? diffColor(t, n) : colorOf(s, matching);
			ctx.fillRect(x, y, Math.max(w - 1, 0.5), ROW - 1);
			const chars = Math.floor((w - 6) / charWidth);
			if (chars >= 3) {
				ctx.fillStyle = hit ? '#fff' : '#111';
				ctx.fillText(fit(nameOf(t, n), chars), x + 3, y + ROW / 2);
			}
		}
		ctx.globalAlpha = 1;
		lastDrawMs = performance.now() - begin;
		showStatus(t);
	}

	/*
	 * Scrolls the zoomed frame into view: with deep stacks the chart is
	 * taller than the window, and the root of a flame graph is at its
	 * bottom, where nobody would look first.  Called after the draws a
	 * person asked for (load, zoom, inversion), not while typing a search.
	 */
	function reveal() {
		const i = frames.node.indexOf(state.zoom);
		if (i < 0)
			return;
		const top = canvas.getBoundingClientRect().top + window.scrollY + frameTop(frames.depth[i]);
		const bar = $('toolbar').offsetHeight;
		const want = state.inverted ? top - bar - 2 * ROW : top + 3 * ROW - window.innerHeight;
		const now = window.scrollY;
		/* Only when it is out of sight: a visible frame does not move. */
		if (top < now + bar || top + ROW > now + window.innerHeight)
			window.scrollTo(0, Math.max(want, 0));
	}

	/* ---- status, search ------------------------------------------ */

	function percent(part, whole) {
		return whole > 0 ? (100 * part / whole).toFixed(2) + '%' : '0%';
	}

	/* Nanoseconds as people read them: "1.234 s", "12.34 ms", "5.6 µs". */
	function duration(ns) {
		if (ns >= 1e9)
			return (ns / 1e9).toFixed(3) + ' s';
		if (ns >= 1e6)
			return (ns / 1e6).toFixed(2) + ' ms';
		if (ns >= 1e3)
			return (ns / 1e3).toFixed(1) + ' \u00b5s';
		return ns + ' ns';
	}

	/* What a weight is in the profile shown: samples, or time. */
	function amount(period, samples) {
		return P.unit === 'ns' ? duration(period) : samples + ' samples';
	}

	function showStatus(t) {
		const parts = [];
		if (!P.total_period)
			parts.push(P.unit === 'ns' ? 'No ' + P.label + ' time.' : 'No samples.');
		if (state.zoom !== 0) {
			const path = [];
			for (let a = state.zoom; a > 0; a = t.parent[a])
				path.push(nameOf(t, a));
			path.reverse();
			const shown = path.length > 6 ? [path[0], '\u2026'].concat(path.slice(-4)) : path;
			parts.push('Zoomed to ' + shown.join(' \u203a ') + ' (' +
				   percent(t.total[state.zoom], t.total[0]) + '): click a faded frame or Esc to zoom out.');
		}
		if (frames.clipped)
			parts.push('Deeper frames are not drawn: zoom in to see them.');
		if (P.hidden_nodes)
			parts.push(P.hidden_nodes + ' subtrees under --percent-limit ' + data.percent_limit +
				   '% (' + percent(P.hidden_period, P.total_period) +
				   (P.unit === 'ns' ? ' of the time' : ' of the samples') + ') are not in this page.');
		$('status').textContent = parts.join(' ');
	}

	/* Smart case: a query without capitals ignores case. */
	function matcher(text, regex) {
		if (regex) {
			const re = new RegExp(text);
			return (name) => re.test(name);
		}
		if (text === text.toLowerCase())
			return (name) => name.toLowerCase().includes(text);
		return (name) => name.includes(text);
	}

	/*
	 * The share of the matches counts each sample once: the topmost
	 * matching frames of the tree, whose subtrees hold every match below
	 * them.  The same in both trees: each is all the stacks.
	 */
	function matched(t) {
		let period = 0, samples = 0;
		const stack = [0];
		while (stack.length) {
			const n = stack.pop();
			if (n !== 0 && state.match[t.sym[n]]) {
				period += t.total[n];
				samples += t.samples[n];
				continue;
			}
			for (let k = t.first[n]; k < t.first[n] + t.count[n]; k++)
				stack.push(t.kids[k]);
		}
		return { period: period, samples: samples, share: P.total_period ? 100 * period / P.total_period : 0 };
	}

	let lastMatch = null;

	function search() {
		const input = $('search'), text = input.value;
		input.classList.remove('bad');
		state.match = null;
		lastMatch = null;
		if (text !== '') {
			let test;
			try {
				test = matcher(text, $('regex').checked);
			} catch (e) {
				input.classList.add('bad');
				$('match').textContent = 'not a regular expression';
				draw();
				return;
			}
			state.match = new Uint8Array(symbolCount);
			for (let s = 0; s < symbolCount; s++)
				state.match[s] = test(str(symbols[s * 5])) ? 1 : 0;
			lastMatch = matched(tree());
		}
		showMatch();
		draw();
	}

	function showMatch() {
		$('match').textContent = lastMatch ? 'Matched: ' + lastMatch.share.toFixed(2) + '% (' +
			amount(lastMatch.period, lastMatch.samples) + ')' : '';
	}

	/* ---- interaction --------------------------------------------- */

	function hitTest(mx, my) {
		if (!frames.rows)
			return -1;
		const row = Math.floor(my / ROW);
		const depth = state.inverted ? row : frames.rows - 1 - row;
		const list = frames.byDepth[depth];
		if (!list)
			return -1;
		let lo = 0, hi = list.length - 1, found = -1;
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			if (frames.x[list[mid]] <= mx) {
				found = list[mid];
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		return found >= 0 && mx < frames.x[found] + frames.w[found] ? found : -1;
	}

	function line(parent, text, cls) {
		const div = document.createElement('div');
		div.textContent = text;
		if (cls)
			div.className = cls;
		parent.appendChild(div);
	}

	function showTip(i, cx, cy) {
		const t = tree(), n = frames.node[i];
		const s = n === 0 ? -1 : t.sym[n];
		const flags = s >= 0 ? symbols[s * 5 + 3] : 0;
		let label = nameOf(t, n);
		if (flags & KERNEL)
			label += ' [kernel]';
		if (flags & INLINED)
			label += ' (inlined)';
		tip.replaceChildren();
		line(tip, label, 'name');
		if (flags & COMM) {
			line(tip, firstLevel, 'more');
		} else if (s >= 0) {
			const dso = str(symbols[s * 5 + 1]);
			const offset = str(symbols[s * 5 + 4]);
			if (dso !== null)
				line(tip, 'DSO: ' + dso + (offset !== null && !(flags & RESOLVED) ? ' +' + offset : ''));
			const source = str(symbols[s * 5 + 2]);
			if (source !== null)
				line(tip, 'Source: ' + source);
		}
		if (P.unit === 'ns')
			line(tip, P.label + ': ' + duration(t.total[n]) + ' (' + percent(t.total[n], t.total[0]) + ')');
		else
			line(tip, 'Samples: ' + t.samples[n] + ' (' + percent(t.total[n], t.total[0]) + ')');
		if (diff)
			line(tip, 'Share: ' + diffText(t, n));
		if (t.self[n] > 0)
			line(tip, 'Self: ' + (P.unit === 'ns' ? duration(t.self[n]) : t.selfSamples[n]) +
			     ' (' + percent(t.self[n], t.total[0]) + ')', 'more');
		if (state.zoom !== 0 && !frames.faded[i])
			line(tip, percent(t.total[n], t.total[state.zoom]) + ' of the zoomed frame', 'more');
		tip.hidden = false;
		const room = document.documentElement.clientWidth;
		const left = Math.min(cx + 14, room - tip.offsetWidth - 4);
		const below = cy + 18 + tip.offsetHeight < window.innerHeight;
		tip.style.left = Math.max(left, 0) + 'px';
		tip.style.top = (below ? cy + 18 : cy - 10 - tip.offsetHeight) + 'px';
	}

	canvas.addEventListener('mousemove', (e) => {
		const i = hitTest(e.offsetX, e.offsetY);
		if (i < 0)
			tip.hidden = true;
		else
			showTip(i, e.clientX, e.clientY);
	});
	canvas.addEventListener('mouseleave', () => {
		tip.hidden = true;
	});
	canvas.addEventListener('click', (e) => {
		const i = hitTest(e.offsetX, e.offsetY);
		if (i < 0)
			return;
		state.zoom = frames.node[i];
		tip.hidden = true;
		draw();
		reveal();
	});

	function reset() {
		state.zoom = 0;
		$('process').value = '-1';
		draw();
		reveal();
	}

	/* The process's node in the current tree: the root's child of its symbol. */
	function zoomToProcess(s) {
		const t = tree();
		state.zoom = 0;
		for (let k = t.first[0]; k < t.first[0] + t.count[0]; k++)
			if (t.sym[t.kids[k]] === s)
				state.zoom = t.kids[k];
		draw();
		reveal();
	}

	function setInverted(on) {
		state.inverted = on;
		$('invert').checked = on;
		const s = Number($('process').value);
		if (state.match !== null)
			lastMatch = matched(tree());
		if (s >= 0)
			zoomToProcess(s);
		else
			reset();
	}

	$('reset').addEventListener('click', reset);
	$('invert').addEventListener('change', (e) => setInverted(e.target.checked));
	$('process').addEventListener('change', (e) => {
		const s = Number(e.target.value);
		if (s >= 0)
			zoomToProcess(s);
		else
			reset();
	});
	let pending = 0;
	$('search').addEventListener('input', () => {
		clearTimeout(pending);
		pending = setTimeout(search, 120);
	});
	$('search').addEventListener('keydown', (e) => {
		if (e.key === 'Enter') {
			clearTimeout(pending);
			search();
		} else if (e.key === 'Escape') {
			e.target.value = '';
			search();
			e.target.blur();
		}
	});
	$('regex').addEventListener('change', search);
	document.addEventListener('keydown', (e) => {
		const typing = e.target instanceof HTMLInputElement && e.target.type !== 'checkbox' ||
			       e.target instanceof HTMLSelectElement;
		if ((e.key === 'f' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typing)) {
			e.preventDefault();
			$('search').focus();
			$('search').select();
		} else if (!typing && e.key === 'Escape') {
			reset();
		} else if (!typing && e.key === 'i' && !e.ctrlKey && !e.metaKey && !e.altKey) {
			setInverted(!state.inverted);
		} else if (!typing && e.key === 'p' && !e.ctrlKey && !e.metaKey && !e.altKey &&
			   profiles.length > 1) {
			setProfile((profiles.indexOf(baseProfile()) + 1) % profiles.length);
		}
	});
	let resizing = 0;
	window.addEventListener('resize', () => {
		clearTimeout(resizing);
		resizing = setTimeout(draw, 100);
	});

	/* ---- the header, the process list, the switch, the first draw - */

	$('first-level').textContent = firstLevel;

	/* The facts of the profile shown: its totals are in its unit. */
	function showFacts() {
		const facts = $('facts');
		facts.replaceChildren();
		for (const fact of P.facts) {
			const div = document.createElement('div');
			const dt = document.createElement('dt');
			const dd = document.createElement('dd');
			dt.textContent = fact[0];
			dd.textContent = fact[1];
			if (fact[2])
				div.className = 'warn';
			div.append(dt, dd);
			facts.appendChild(div);
		}
		const kind = (diff ? 'perfrec differential flame graph' : 'perfrec flame graph') +
			     (profiles.length > 1 ? ': ' + P.label : '');
		$('title').textContent = kind;
		if (P.facts.length && P.facts[0][0] === 'Host')
			document.title = kind + (profiles.length > 1 ? ', ' : ': ') + P.facts[0][1];
	}

	/* The root's children of the profile shown, heaviest first. */
	function fillProcesses() {
		const select = $('process');
		const c = trees(P).caller;
		while (select.options.length > 1)
			select.remove(1);
		select.value = '-1';
		for (let k = c.first[0]; k < c.first[0] + c.count[0]; k++) {
			const n = c.kids[k], option = document.createElement('option');
			/* A process only the baseline has has no frame to zoom to. */
			if (!c.total[n])
				continue;
			option.value = String(c.sym[n]);
			option.text = nameOf(c, n) + ' (' + percent(c.total[n], c.total[0]) + ')';
			select.appendChild(option);
		}
	}

	/*
	 * Another profile of the capture: its header, processes, search
	 * share and tree, zoomed out; the inversion and the search stay.
	 */
	function setProfile(i) {
		if (profiles[i] === baseProfile())
			return;
		P = profiles[i];
		range.P0 = null;
		diff = P.baseline || null;
		state.zoom = 0;
		tip.hidden = true;
		for (const button of $('profiles').querySelectorAll('button'))
			button.setAttribute('aria-pressed', String(Number(button.dataset.index) === i));
		showFacts();
		fillProcesses();
		if (state.match !== null)
			lastMatch = matched(tree());
		showMatch();
		draw();
		reveal();
		/* The same range of the other profile: they share the slots. */
		if (range.sel || range.base)
			applyRange();
		else
			drawHeat();
	}

	showFacts();
	showLegend();
	/* The switch, only where there is something to switch to. */
	if (profiles.length > 1) {
		const group = $('profiles');
		profiles.forEach((p, i) => {
			const button = document.createElement('button');
			button.type = 'button';
			button.dataset.index = String(i);
			button.dataset.kind = p.kind;
			button.textContent = p.label;
			button.title = p.label + ' profile (p: the next one)';
			button.setAttribute('aria-pressed', String(p === P));
			button.addEventListener('click', () => setProfile(i));
			group.appendChild(button);
		});
		group.hidden = false;
	}
	fillProcesses();
	$('invert').checked = state.inverted;
	draw();
	reveal();

	/* ---- time: the heatmap, ranges, the series ------------------- */

	/*
	 * A profile's "time" (flame-time.c): its slots' entries, each a node
	 * of the caller tree (the page's order) and its weight, and the
	 * heatmap's buckets.  A range is whole slots [s0, s1): its tree is
	 * the caller tree's shape with each node's self the range's entries
	 * summed, totals up the tree; everything else (layout, search,
	 * inversion, differential colours) runs on it as on the capture's.
	 */
	/* A base64 text of LEB128 varints, read one at a time. */
	function varints(text) {
		const raw = atob(text || '');
		let at = 0;
		return {
			more: () => at < raw.length,
			next: () => {
				let v = 0, scale = 1, b;
				do {
					b = raw.charCodeAt(at++);
					v += (b & 0x7f) * scale;
					scale *= 128;
				} while (b & 0x80 && at < raw.length);
				return v;
			},
		};
	}

	function timeOf(p) {
		if (p.timeData !== undefined)
			return p.timeData;
		const t = p.time;
		p.timeData = null;
		if (!t || !t.slot_count)
			return null;
		const ns = p.unit === 'ns';
		const slotList = [];
		let n = 0;
		for (const r = varints(t.slots); r.more();) {
			const skip = r.next(), count = r.next();
			slotList.push(skip, count);
			n += count;
		}
		const T = {
			slotNs: t.slot_ns, bucketNs: t.bucket_ns, rows: t.rows || 50,
			originMs: t.origin_utc_ms, slotCount: t.slot_count,
			first: new Int32Array(t.slot_count + 1),
			code: new Int32Array(n), period: new Float64Array(n), samples: new Float64Array(n),
		};
		const raw = varints(t.entries);
		let e = 0, slot = 0;
		for (let i = 0; i + 1 < slotList.length; i += 2) {
			const s = Math.min(slot + slotList[i], T.slotCount - 1);
			for (let k = slot; k <= s; k++)
				T.first[k] = e;
			let code = 0;
			for (let j = 0; j < slotList[i + 1] && raw.more(); j++, e++) {
				code += raw.next();
				T.code[e] = code;
				T.period[e] = raw.next();
				T.samples[e] = raw.next();
			}
			slot = s + 1;
		}
		for (let k = slot; k <= T.slotCount; k++)
			T.first[k] = e;
		const buckets = [];
		for (const r = varints(t.buckets); r.more();) {
			buckets.push(r.next(), r.next());
			if (ns)
				buckets.push(r.next());
		}
		/* The buckets dense: the budget of flame-time.c bounds them. */
		const stride = ns ? 3 : 2;
		let count = 0;
		for (let i = 0, b = 0; i < buckets.length; i += stride) {
			b += buckets[i];
			count = b + 1;
			b++;
		}
		/* Whole columns, and at least the slots' span. */
		const slotBuckets = T.slotNs / T.bucketNs;
		count = Math.max(count, T.slotCount * slotBuckets);
		count = Math.ceil(count / T.rows) * T.rows;
		T.heat = new Float64Array(count);
		T.heatSamples = new Float64Array(count);
		for (let i = 0, b = 0; i < buckets.length; i += stride) {
			b += buckets[i];
			T.heatSamples[b] = buckets[i + 1];
			T.heat[b] = ns ? buckets[i + 2] : buckets[i + 1];
			b++;
		}
		T.columns = count / T.rows;
		/* One instant: nothing to select. */
		let used = 0;
		for (let i = 0; i < count && used < 2; i++)
			used += T.heat[i] > 0 ? 1 : 0;
		for (let k = 0, slots = 0; k < T.slotCount && used < 2; k++)
			used = Math.max(used, slots += T.first[k + 1] > T.first[k] ? 1 : 0);
		T.spans = used > 1;
		p.timeData = T;
		return T;
	}

	/* The range's weights by node of the caller tree c. */
	function rangeSums(T, c, s0, s1) {
		const n = c.n;
		const r = { self: new Float64Array(n), selfSamples: new Float64Array(n),
			    total: new Float64Array(n), samples: new Float64Array(n) };
		for (let e = T.first[s0]; e < T.first[s1]; e++) {
			const code = T.code[e], k = code >> 1;
			if (k >= n)
				continue;
			r.total[k] += T.period[e];
			r.samples[k] += T.samples[e];
			if (!(code & 1)) {
				r.self[k] += T.period[e];
				r.selfSamples[k] += T.samples[e];
			}
		}
		for (let i = n - 1; i > 0; i--) {
			r.total[c.parent[i]] += r.total[i];
			r.samples[c.parent[i]] += r.samples[i];
		}
		return r;
	}

	/* The caller tree's shape with a range's weights, children heaviest first. */
	function rangeTree(c, r, b) {
		const t = {
			n: c.n, sym: c.sym, parent: c.parent, depth: c.depth, first: c.first,
			count: c.count, maxDepth: c.maxDepth,
			total: r.total, self: r.self, samples: r.samples, selfSamples: r.selfSamples,
			base: b ? b.total : new Float64Array(c.n), baseSelf: b ? b.self : new Float64Array(c.n),
			kids: c.kids.slice(),
		};
		const heaviest = (x, y) => t.total[y] - t.total[x] || t.base[y] - t.base[x] || x - y;
		for (let i = 0; i < t.n; i++)
			if (t.count[i] > 1)
				t.kids.subarray(t.first[i], t.first[i] + t.count[i]).sort(heaviest);
		return t;
	}

	const heat = $('heatmap'), series = $('series');
	const hctx = heat.getContext('2d'), sctx = series.getContext('2d');
	const CELL_H = 4, SERIES_H = 60, MIN_COL = 4, SERIES_KEYS = 6;
	let lastRangeMs = 0;

	function utc(ms) {
		return new Date(ms).toISOString();
	}

	/* As perfrec-report --since takes it: whole seconds without a fraction. */
	function isoArg(ms) {
		const s = utc(ms);
		return ms % 1000 === 0 ? s.replace('.000Z', 'Z') : s;
	}

	function slotMs(T, s) {
		return T.originMs + s * T.slotNs / 1e6;
	}

	function baseProfile() {
		return range.P0 || P;
	}

	function heatLayout(T) {
		const width = Math.max(chart.clientWidth, 100);
		const most = Math.max(Math.floor(width / MIN_COL), 1);
		if (hview.zoomed && T.columns > most) {
			hview.k = 1;
			hview.count = most;
			hview.first = Math.min(Math.max(hview.zoomAt - (most >> 1), 0), T.columns - most);
		} else {
			hview.zoomed = false;
			hview.k = Math.max(Math.ceil(T.columns / most), 1);
			hview.first = 0;
			hview.count = Math.ceil(T.columns / hview.k);
		}
		hview.width = width;
		hview.colW = width / hview.count;
		$('heat-overview').hidden = !hview.zoomed;
	}

	/* Buckets [from, to) of the cell at column col, row row. */
	function cellBuckets(T, col, row) {
		const start = (hview.first + col * hview.k) * T.rows + row * hview.k;
		return [start, start + hview.k];
	}

	function cellValue(T, col, row) {
		const [a, b] = cellBuckets(T, col, row);
		let v = 0;
		for (let i = a; i < b && i < T.heat.length; i++)
			v += T.heat[i];
		return v;
	}

	function shade(f) {
		/* Light yellow to dark red, as FlameScope's. */
		const lo = [255, 237, 160], hi = [189, 0, 38];
		const c = (i) => Math.round(lo[i] + (hi[i] - lo[i]) * f);
		return 'rgb(' + c(0) + ',' + c(1) + ',' + c(2) + ')';
	}

	/* The part of buckets [a, b) in column col, as rows [r0, r1). */
	function overlay(T, col, a, b, color) {
		const start = (hview.first + col * hview.k) * T.rows, end = start + hview.k * T.rows;
		const x = Math.max(a, start), y = Math.min(b, end);
		if (x >= y)
			return;
		const r0 = Math.floor((x - start) / hview.k), r1 = Math.ceil((y - start) / hview.k);
		hctx.fillStyle = color;
		hctx.fillRect(col * hview.colW, r0 * CELL_H, hview.colW, (r1 - r0) * CELL_H);
	}

	function slotBuckets(T, sel) {
		const per = T.slotNs / T.bucketNs;
		return [sel[0] * per, sel[1] * per];
	}

	/*
	 * The cells and the series are drawn once a view (profile, columns,
	 * width) into a canvas of their own; a range only redraws its
	 * overlay on a copy of it.
	 */
	let heatCache = null;

	function paintCells(T, dpr, h) {
		const image = document.createElement('canvas');
		image.width = Math.round(hview.width * dpr);
		image.height = Math.round(h * dpr);
		const g = image.getContext('2d');
		g.setTransform(dpr, 0, 0, dpr, 0, 0);
		g.fillStyle = '#fff';
		g.fillRect(0, 0, hview.width, h);
		let max = 0;
		const values = new Float64Array(hview.count * T.rows);
		for (let c = 0; c < hview.count; c++)
			for (let r = 0; r < T.rows; r++) {
				const v = cellValue(T, c, r);
				values[c * T.rows + r] = v;
				if (v > max)
					max = v;
			}
		hview.max = max || 1;
		for (let c = 0; c < hview.count; c++)
			for (let r = 0; r < T.rows; r++) {
				const v = values[c * T.rows + r];
				if (!v)
					continue;
				g.fillStyle = shade(v / hview.max);
				g.fillRect(c * hview.colW, r * CELL_H, Math.max(hview.colW - 0.5, 0.5), CELL_H - 0.5);
			}
		return image;
	}

	function drawHeat() {
		const T = timeOf(baseProfile());
		if (!T || !T.spans)
			return;
		heatLayout(T);
		const dpr = window.devicePixelRatio || 1;
		const h = T.rows * CELL_H;
		const key = [profiles.indexOf(baseProfile()), hview.first, hview.k, hview.count, hview.width, dpr].join();
		if (!heatCache || heatCache.key !== key) {
			heatCache = { key: key, image: paintCells(T, dpr, h) };
			drawAxis(T, dpr);
			$('heat-help').textContent = 'A column is ' + duration(hview.k * T.rows * T.bucketNs) +
				', a row ' + duration(hview.k * T.bucketNs) + ' of it, the shade its ' +
				(P.unit === 'ns' ? 'time' : 'samples') + '. Drag (or click a start and an end) to see a range; ' +
				'shift-drag, or "Use as baseline", for a baseline to compare it with' +
				(hview.k > 1 ? '; a click on a column shows its stretch at ' + duration(T.rows * T.bucketNs) +
				 ' columns.' : '.');
			drawSeries(T);
		}
		heat.width = heatCache.image.width;
		heat.height = heatCache.image.height;
		heat.style.height = h + 'px';
		hctx.setTransform(1, 0, 0, 1, 0, 0);
		hctx.drawImage(heatCache.image, 0, 0);
		hctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		for (const [sel, color] of [[range.base, 'rgba(52,108,232,0.45)'], [range.sel, 'rgba(20,20,20,0.35)']]) {
			if (!sel)
				continue;
			const [a, b] = slotBuckets(T, sel);
			for (let c = 0; c < hview.count; c++)
				overlay(T, c, a, b, color);
		}
		if (range.anchor !== null)
			for (let c = 0; c < hview.count; c++)
				overlay(T, c, range.anchor, range.anchor + 1, 'rgba(20,20,20,0.6)');
	}

	/* The columns' start times of day in UTC, as many as fit (the date is in the header). */
	function drawAxis(T, dpr) {
		const axis = $('heat-axis'), g = axis.getContext('2d'), height = 16;
		axis.width = Math.round(hview.width * dpr);
		axis.height = Math.round(height * dpr);
		axis.style.height = height + 'px';
		g.setTransform(dpr, 0, 0, dpr, 0, 0);
		g.clearRect(0, 0, hview.width, height);
		g.font = '11px ui-monospace, "DejaVu Sans Mono", monospace';
		g.fillStyle = '#5c6370';
		g.textBaseline = 'top';
		const colMs = hview.k * T.rows * T.bucketNs / 1e6;
		const every = Math.max(Math.ceil(70 / hview.colW), 1);
		for (let c = 0; c < hview.count; c += every) {
			const text = utc(T.originMs + (hview.first * T.rows * T.bucketNs / 1e6) + c * colMs);
			g.fillRect(c * hview.colW, 0, 1, 4);
			g.fillText(text.slice(11, 19), c * hview.colW + 2, 4);
		}
	}

	/* The top first-level keys' weight over the heatmap's columns, stacked. */
	function drawSeries(T) {
		const P0 = baseProfile(), c = trees(P0).caller;
		const keys = [];
		for (let k = c.first[0]; k < c.first[0] + c.count[0] && keys.length < SERIES_KEYS; k++)
			if (c.total[c.kids[k]])
				keys.push(c.kids[k]);
		const top = new Int32Array(c.n).fill(-1);
		for (let i = 1; i < c.n; i++)
			top[i] = c.parent[i] === 0 ? keys.indexOf(i) : top[c.parent[i]];
		const groups = keys.length + 1;
		const cols = hview.count, sums = new Float64Array(cols * groups);
		const colNs = hview.k * T.rows * T.bucketNs;
		let max = 0;
		for (let s = 0; s < T.slotCount; s++) {
			const col = Math.floor((s * T.slotNs / colNs) - hview.first / hview.k);
			if (col < 0 || col >= cols)
				continue;
			for (let e = T.first[s]; e < T.first[s + 1]; e++) {
				const k = T.code[e] >> 1, g = k < c.n && top[k] >= 0 ? top[k] : keys.length;
				sums[col * groups + g] += T.period[e];
			}
		}
		for (let col = 0; col < cols; col++) {
			let sum = 0;
			for (let g = 0; g < groups; g++)
				sum += sums[col * groups + g];
			max = Math.max(max, sum);
		}
		const dpr = window.devicePixelRatio || 1;
		series.width = Math.round(hview.width * dpr);
		series.height = Math.round(SERIES_H * dpr);
		series.style.height = SERIES_H + 'px';
		sctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		sctx.clearRect(0, 0, hview.width, SERIES_H);
		const color = (g) => g < keys.length ? hsl((g * 67 + 200) % 360, 0.55, 0.55) : '#c8ccd4';
		for (let col = 0; col < cols && max; col++) {
			let y = SERIES_H;
			for (let g = 0; g < groups; g++) {
				const h = SERIES_H * sums[col * groups + g] / max;
				if (!h)
					continue;
				sctx.fillStyle = color(g);
				sctx.fillRect(col * hview.colW, y - h, Math.max(hview.colW - 0.5, 0.5), h);
				y -= h;
			}
		}
		const legend = $('series-keys');
		legend.replaceChildren();
		for (let g = 0; g < groups; g++) {
			const span = document.createElement('span'), sw = document.createElement('span');
			sw.className = 'key';
			sw.style.background = color(g);
			span.append(sw, g < keys.length ? nameOf(c, keys[g]) : 'other');
			legend.appendChild(span);
		}
	}

	/* The bucket under a point of the heatmap, or -1. */
	function heatBucket(T, x, y) {
		const col = Math.floor(x / hview.colW), row = Math.floor(y / CELL_H);
		if (col < 0 || col >= hview.count || row < 0 || row >= T.rows)
			return -1;
		return cellBuckets(T, col, row)[0];
	}

	function bucketMs(T, b) {
		return T.originMs + b * T.bucketNs / 1e6;
	}

	/* A range of buckets [a, b) to whole slots. */
	function snap(T, a, b) {
		const per = T.slotNs / T.bucketNs;
		const s0 = Math.max(Math.floor(a / per), 0), s1 = Math.min(Math.max(Math.ceil(b / per), s0 + 1), T.slotCount);
		return [Math.min(s0, T.slotCount - 1), s1];
	}

	function rangeText(T, sel) {
		return utc(slotMs(T, sel[0])) + ' to ' + utc(slotMs(T, sel[1])) + ' (' +
			duration((sel[1] - sel[0]) * T.slotNs) + ')';
	}

	/* A file name as one word of a POSIX shell. */
	function shellWord(s) {
		if (s.charAt(0) === '-')
			s = './' + s;
		return /^[A-Za-z0-9_@%+=:,.\/-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
	}

	function rangeCommand(T, sel, base) {
		let cmd = 'perfrec-report --since ' + isoArg(slotMs(T, sel[0])) + ' --until ' + isoArg(slotMs(T, sel[1]));
		if (base)
			cmd += ' --baseline-since ' + isoArg(slotMs(T, base[0])) + ' --baseline-until ' + isoArg(slotMs(T, base[1]));
		if (P.kind !== 'cpu')
			cmd += ' --profile=' + P.kind;
		const files = baseProfile().time.files;
		return cmd + ' ' + (files && files.length ? files.map(shellWord).join(' ') : 'CAPTURE...');
	}

	/*
	 * Shows the range (and the baseline) of the profile range.P0: the
	 * flame graph, the processes, the search share and the inverted view
	 * of the range alone.
	 */
	function applyRange() {
		const begin = performance.now();
		const P0 = baseProfile(), T = timeOf(P0);
		range.P0 = null;
		P = P0;
		diff = P.baseline || null;
		if (range.sel && T) {
			const c = trees(P0).caller;
			const r = rangeSums(T, c, range.sel[0], range.sel[1]);
			const b = range.base ? rangeSums(T, c, range.base[0], range.base[1]) : null;
			const R = Object.create(P0);
			R.total_period = r.total[0];
			R.total_samples = r.samples[0];
			R.trees = { caller: rangeTree(c, r, b), inverted: null };
			R.baseline = undefined;
			if (b) {
				let gone = 0, goneNodes = 0;
				for (let i = 1; i < c.n; i++)
					if (!r.total[i] && b.total[i] && r.total[c.parent[i]]) {
						gone += b.total[i];
						goneNodes++;
					}
				R.baseline = { total_period: b.total[0], total_samples: b.samples[0],
					       gone_nodes: goneNodes, gone_period: gone, scale: 10 };
			}
			range.P0 = P0;
			P = R;
			diff = R.baseline || null;
		}
		state.zoom = 0;
		tip.hidden = true;
		showFacts();
		showLegend();
		fillProcesses();
		if (state.match !== null)
			lastMatch = matched(tree());
		showMatch();
		draw();
		showRange(T);
		drawHeat();
		lastRangeMs = performance.now() - begin;
	}

	function showRange(T) {
		const line = $('range'), command = $('range-command');
		$('range-clear').disabled = !range.sel && !range.base;
		$('range-baseline').disabled = !range.sel;
		if (!T || !range.sel) {
			line.textContent = range.base ? 'Baseline: ' + rangeText(T, range.base) +
				'. Select the range to compare with it.' : '';
			$('range-command-line').hidden = true;
			return;
		}
		let text = 'Range: ' + rangeText(T, range.sel) + ', ' + amount(P.total_period, P.total_samples) + '.';
		if (range.base)
			text += ' Baseline: ' + rangeText(T, range.base) + ', ' +
				amount(diff.total_period, diff.total_samples) + '.';
		text += ' Ranges snap to the ' + duration(T.slotNs) + ' slots the page keeps: these times are the snapped ones.';
		line.textContent = text;
		command.textContent = rangeCommand(T, range.sel, range.base);
		$('range-command-line').hidden = false;
	}

	/* Selects UTC milliseconds [fromMs, toMs), snapped to slots; as the baseline with asBase. */
	function selectMs(fromMs, toMs, asBase) {
		const T = timeOf(baseProfile());
		if (!T)
			return null;
		const per = T.bucketNs / 1e6;
		const sel = snap(T, Math.floor((fromMs - T.originMs) / per), Math.ceil((toMs - T.originMs) / per));
		if (asBase)
			range.base = sel;
		else
			range.sel = sel;
		applyRange();
		return selection();
	}

	function selection() {
		const T = timeOf(baseProfile());
		if (!T)
			return null;
		const part = (sel) => sel ? { since: isoArg(slotMs(T, sel[0])), until: isoArg(slotMs(T, sel[1])),
					       sinceMs: slotMs(T, sel[0]), untilMs: slotMs(T, sel[1]) } : null;
		return { range: part(range.sel), baseline: part(range.base),
			 command: range.sel ? rangeCommand(T, range.sel, range.base) : null,
			 totalPeriod: P.total_period, totalSamples: P.total_samples };
	}

	function clearRange() {
		range.sel = range.base = null;
		range.anchor = null;
		applyRange();
	}

	function useAsBaseline() {
		if (!range.sel)
			return;
		range.base = range.sel;
		range.sel = null;
		applyRange();
	}

	/* The legend of a differential graph: the capture's baseline, or a range's. */
	function showLegend() {
		const legend = $('legend');
		legend.replaceChildren();
		legend.hidden = !diff;
		if (!diff)
			return;
		const swatch = (color, text) => {
			const span = document.createElement('span');
			span.className = 'swatch';
			span.style.background = color;
			legend.append(span, text);
		};
		const rgb = (c) => 'rgb(' + c.join(',') + ')';
		legend.append((range.base ? 'The range against the baseline range: w' : 'W') +
			      'idths are this profile\'s; colours the change of each frame\'s share against the baseline\'s, ' +
			      'full at \u00b1' + diff.scale + ' points: ');
		swatch(rgb(GROWN), ' grew (or is new), ');
		swatch(rgb(SHRUNK), ' shrank, ');
		swatch(rgb(NEUTRAL), ' the same. ');
		legend.append(diff.gone_nodes ? 'Stacks only in the baseline (' +
			      percent(diff.gone_period, diff.total_period) + ' of it) have no width: not drawn.' :
			      'Every stack of the baseline is here.');
	}

	function heatReadout(T, b) {
		if (b < 0) {
			$('heat-readout').textContent = '';
			return;
		}
		const col = Math.floor((b / T.rows - hview.first) / hview.k);
		const row = Math.floor((b - (hview.first + col * hview.k) * T.rows) / hview.k);
		const [a, e] = cellBuckets(T, col, row);
		let v = 0, n = 0;
		for (let i = a; i < e && i < T.heat.length; i++) {
			v += T.heat[i];
			n += T.heatSamples[i];
		}
		$('heat-readout').textContent = utc(bucketMs(T, a)) + ' + ' + duration((e - a) * T.bucketNs) + ': ' +
			amount(v, n);
	}

	function setupTimeline() {
		if (!profiles.some((p) => { const t = timeOf(p); return t && t.spans; }))
			return;
		$('timeline').hidden = false;
		const point = (e) => {
			const T = timeOf(baseProfile());
			return T ? heatBucket(T, e.offsetX, e.offsetY) : -1;
		};
		heat.addEventListener('mousemove', (e) => {
			const T = timeOf(baseProfile());
			if (!T)
				return;
			const b = point(e);
			heatReadout(T, b);
			if (range.drag && b >= 0)
				range.drag.to = b;
		});
		heat.addEventListener('mouseleave', () => {
			$('heat-readout').textContent = '';
		});
		heat.addEventListener('mousedown', (e) => {
			const b = point(e);
			if (b >= 0)
				range.drag = { from: b, to: b, base: e.shiftKey };
			e.preventDefault();
		});
		window.addEventListener('mouseup', (e) => {
			const d = range.drag, T = timeOf(baseProfile());
			range.drag = null;
			if (!d || !T)
				return;
			const to = e.target === heat ? point(e) : d.to;
			if (to >= 0)
				d.to = to;
			const k = hview.k;
			if (d.to === d.from) {
				if (k > 1) {
					/* A coarse column: its stretch at base columns. */
					hview.zoomed = true;
					hview.zoomAt = Math.floor(d.from / T.rows);
					drawHeat();
					return;
				}
				if (range.anchor === null) {
					range.anchor = d.from;
					drawHeat();
					return;
				}
				d.from = range.anchor;
			}
			range.anchor = null;
			const a = Math.min(d.from, d.to), b = Math.max(d.from, d.to) + k;
			const sel = snap(T, a, b);
			if (d.base)
				range.base = sel;
			else
				range.sel = sel;
			applyRange();
		});
		$('heat-overview').addEventListener('click', () => {
			hview.zoomed = false;
			drawHeat();
		});
		$('range-clear').addEventListener('click', clearRange);
		$('range-baseline').addEventListener('click', useAsBaseline);
		document.addEventListener('keydown', (e) => {
			const typing = e.target instanceof HTMLInputElement && e.target.type !== 'checkbox' ||
				       e.target instanceof HTMLSelectElement;
			if (typing || e.ctrlKey || e.metaKey || e.altKey)
				return;
			if (e.key === 'c')
				clearRange();
			else if (e.key === 'b')
				useAsBaseline();
		});
		window.addEventListener('resize', () => setTimeout(drawHeat, 120));
		drawHeat();
	}

	const timeBegin = performance.now();
	setupTimeline();
	const timeMs = performance.now() - timeBegin;

	/* For tests and the curious: what is drawn, and how long it took. */
	window.perfrecFlame = {
		timings: { parse: parsed - started, build: built - parsed, firstDraw: lastDrawMs,
			   ready: performance.now(), time: timeMs },
		nodeCount: () => tree().n,
		lastDrawMs: () => lastDrawMs,
		invertMs: () => invertMs,
		inverted: () => state.inverted,
		matched: () => lastMatch,
		profile: () => ({ kind: P.kind, label: P.label, unit: P.unit,
				  totalPeriod: P.total_period, totalSamples: P.total_samples }),
		profiles: () => profiles.map((p) => p.kind),
		frames: () => frames.node.map((n, i) => ({
			name: nameOf(tree(), n), x: frames.x[i], y: frameTop(frames.depth[i]),
			width: frames.w[i], height: ROW, depth: frames.depth[i], faded: frames.faded[i],
			share: share(tree().total[n], P.total_period),
			period: tree().total[n],
			base: diff ? share(tree().base[n], diff.total_period) : null,
			color: diff ? diffColor(tree(), n) : null,
		})),
		width: () => chart.clientWidth,
		/* Time: the base columns' totals, ranges chosen as a person would. */
		time: () => {
			const T = timeOf(baseProfile());
			if (!T || !T.spans)
				return null;
			const columns = [];
			for (let c = 0; c < T.columns; c++) {
				let samples = 0, weight = 0;
				for (let i = c * T.rows; i < (c + 1) * T.rows; i++) {
					samples += T.heatSamples[i];
					weight += T.heat[i];
				}
				columns.push({ startMs: bucketMs(T, c * T.rows), samples: samples, weight: weight });
			}
			return { originMs: T.originMs, slotNs: T.slotNs, bucketNs: T.bucketNs, rows: T.rows,
				 slotCount: T.slotCount, entries: T.code.length, columns: columns,
				 view: { first: hview.first, k: hview.k, count: hview.count, zoomed: hview.zoomed } };
		},
		selectRange: (fromMs, toMs) => selectMs(fromMs, toMs, false),
		selectBaseline: (fromMs, toMs) => selectMs(fromMs, toMs, true),
		clearRange: () => { clearRange(); return selection(); },
		selection: selection,
		lastRangeMs: () => lastRangeMs,
		heatCell: (col, row) => {
			const T = timeOf(baseProfile());
			return T ? { x: (col + 0.5) * hview.colW, y: (row + 0.5) * CELL_H,
				     startMs: bucketMs(T, cellBuckets(T, col, row)[0]) } : null;
		},
		ready: true,
	};
})();
