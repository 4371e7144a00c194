// Render Markdown with the JavaScript renderers chat clients use: marked,
// markdown-it (15, and 14 whose linkify still links `www.`), micromark + GFM,
// commonmark.js, and remark + rehype-raw (react-markdown's pipeline); and, as
// Streamdown does on every streamed prefix, remend's self-healing before remark,
// markdown-it, marked and micromark + GFM (`remend+...`).
// Reads a JSON array of Markdown strings on stdin; writes a JSON array of
// {renderer: html} objects, raw HTML allowed wherever the renderer supports it.
// --serve: a long-lived process speaking JSON lines (see `serve` below).
import { createInterface } from 'node:readline';
import { marked } from 'marked';
import MarkdownIt from 'markdown-it';
import MarkdownIt14 from 'markdown-it-14';  // npm alias of markdown-it@14 (linkify-it 5, fuzzy links on)
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';
import * as commonmark from 'commonmark';
import { unified } from 'unified';
import remarkParse from 'remark-parse';
import remarkGfm from 'remark-gfm';
import remarkRehype from 'remark-rehype';
import rehypeRaw from 'rehype-raw';
import rehypeStringify from 'rehype-stringify';
import remend from 'remend';

const mdit = new MarkdownIt({ html: true, linkify: true });
const mdit14 = new MarkdownIt14({ html: true, linkify: true });
const cmParser = new commonmark.Parser();
const cmWriter = new commonmark.HtmlRenderer({ safe: false });
const micromarkGfm = (t) => micromark(t, {
  allowDangerousHtml: true, allowDangerousProtocol: false,
  extensions: [gfm()], htmlExtensions: [gfmHtml()],
});
const remark = unified()
  .use(remarkParse).use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeRaw)
  .use(rehypeStringify, { allowDangerousHtml: true });

export const RENDERERS = {
  'marked': (t) => marked.parse(t, { async: false }),
  'markdown-it': (t) => mdit.render(t),
  'markdown-it@14': (t) => mdit14.render(t),
  'micromark+gfm': micromarkGfm,
  'commonmark.js': (t) => cmWriter.render(cmParser.parse(t)),
  'remark+rehype-raw': (t) => String(remark.processSync(t)),
  'remend+remark': (t) => String(remark.processSync(remend(t))),
  'remend+markdown-it': (t) => mdit.render(remend(t)),
  'remend+marked': (t) => marked.parse(remend(t), { async: false }),
  'remend+micromark+gfm': (t) => micromarkGfm(remend(t)),
};

const render = (fn, text) => {
  try { return fn(text); } catch (e) { return `<!--RENDER-ERROR ${String(e).replace(/--/g, '- -')}-->`; }
};

// Healing renderers, as a streaming client runs them on every prefix it receives.
const HEALING = Object.entries(RENDERERS).filter(([name]) => name.startsWith('remend+'));

// --serve: first writes {renderers, healing} (the names), then reads one request a
// line, {text, renderers, cuts?}, and answers one line per render as soon as it is done,
// so that the client can time each renderer out (and restart this process) on its own:
// without cuts, {html} per renderer; with cuts (null: every prefix), for each renderer in
// turn, {html} per cut, html null where that renderer already rendered the same page for
// an earlier cut of this request.
const serve = async () => {
  const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
  write({ renderers: Object.keys(RENDERERS), healing: HEALING.map(([name]) => name) });
  for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
    const { text, renderers, cuts } = JSON.parse(line);
    for (const name of renderers) {
      const fn = RENDERERS[name];
      if (cuts === undefined) {
        write({ html: render(fn, text) });
        continue;
      }
      const seen = new Set();
      for (const cut of cuts ?? Array.from({ length: text.length + 1 }, (_, i) => i)) {
        const html = render(fn, text.slice(0, cut));
        write({ html: seen.has(html) ? null : html });
        seen.add(html);
      }
    }
  }
};

// Default: each input is a Markdown string; every renderer renders it.
// --prefixes: each input is {text, cuts, remark_cuts} (null: every prefix, the whole
// text included; remark_cuts, for remend+remark, the slowest, defaults to cuts); the
// healing renderers render text.slice(0, cut) for each cut, and the distinct pages
// each one produced are returned.
const batch = async () => {
  const prefixes = process.argv.includes('--prefixes');
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const inputs = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const out = inputs.map((input) => {
    const r = {};
    if (!prefixes) {
      for (const [name, fn] of Object.entries(RENDERERS)) r[name] = render(fn, input);
      return r;
    }
    const { text } = input;
    const every = Array.from({ length: text.length + 1 }, (_, i) => i);
    const cuts = input.cuts ?? every;
    for (const [name, fn] of HEALING) {
      const own = name === 'remend+remark' && input.remark_cuts !== undefined ? input.remark_cuts ?? every : cuts;
      r[name] = [...new Set(own.map((cut) => render(fn, text.slice(0, cut))))];
    }
    return r;
  });
  process.stdout.write(JSON.stringify(out));
};

await (process.argv.includes('--serve') ? serve() : batch());
