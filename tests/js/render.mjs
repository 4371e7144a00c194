// Render Markdown with the JavaScript renderers chat clients use: marked,
// markdown-it (15, and 14 whose linkify still links `www.`), micromark + GFM,
// commonmark.js, and remark + rehype-raw (react-markdown's pipeline).
// Reads a JSON array of Markdown strings on stdin; writes a JSON array of
// {renderer: html} objects, raw HTML allowed wherever the renderer supports it.
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

const mdit = new MarkdownIt({ html: true, linkify: true });
const mdit14 = new MarkdownIt14({ html: true, linkify: true });
const cmParser = new commonmark.Parser();
const cmWriter = new commonmark.HtmlRenderer({ safe: false });
const remark = unified()
  .use(remarkParse).use(remarkGfm)
  .use(remarkRehype, { allowDangerousHtml: true })
  .use(rehypeRaw)
  .use(rehypeStringify, { allowDangerousHtml: true });

export const RENDERERS = {
  'marked': (t) => marked.parse(t, { async: false }),
  'markdown-it': (t) => mdit.render(t),
  'markdown-it@14': (t) => mdit14.render(t),
  'micromark+gfm': (t) => micromark(t, {
    allowDangerousHtml: true, allowDangerousProtocol: false,
    extensions: [gfm()], htmlExtensions: [gfmHtml()],
  }),
  'commonmark.js': (t) => cmWriter.render(cmParser.parse(t)),
  'remark+rehype-raw': (t) => String(remark.processSync(t)),
};

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const inputs = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const out = inputs.map((text) => {
  const r = {};
  for (const [name, fn] of Object.entries(RENDERERS)) {
    try { r[name] = fn(text); } catch (e) { r[name] = `<!--RENDER-ERROR ${String(e).replace(/--/g, '- -')}-->`; }
  }
  return r;
});
process.stdout.write(JSON.stringify(out));
