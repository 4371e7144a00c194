// Render TeX with KaTeX as a chat UI may configure it at its most permissive
// (`trust: true`: \href, \url, \includegraphics and \htmlStyle render).
// Reads a JSON array of {tex, display} on stdin; writes a JSON array of HTML strings.
import katex from 'katex';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const inputs = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const out = inputs.map(({ tex, display }) => {
  try {
    return katex.renderToString(tex, { trust: true, strict: false, throwOnError: false, displayMode: display });
  } catch (e) {
    return `<!--KATEX-ERROR ${String(e).replace(/--/g, '- -')}-->`;
  }
});
process.stdout.write(JSON.stringify(out));
