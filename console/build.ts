/**
 * Builds the web console into a folder the server serves at /console/: esbuild bundles
 * console/src (TypeScript, Preact, uPlot, and the server's own src/domain rules for parts and
 * encodings) into hashed assets, and index.html is written to load them. Run by `npm run build`
 * (into dist/console) and by the browser tests (into a folder of their own).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const SOURCE = fileURLToPath(new URL('./', import.meta.url));

export async function buildConsole(outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true });
  const assets = join(outDir, 'assets');
  await mkdir(assets, { recursive: true });
  const result = await build({
    entryPoints: [join(SOURCE, 'src/main.tsx')],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022', 'chrome110', 'firefox110', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    outdir: assets,
    metafile: true,
    sourcemap: 'linked',
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => relative(outDir, p));
  const script = outputs.find((p) => p.endsWith('.js'));
  const style = outputs.find((p) => p.endsWith('.css'));
  if (!script || !style) throw new Error('console build produced no script or stylesheet');

  const icon = await readFile(join(SOURCE, 'static/icon.svg'));
  await writeFile(join(assets, 'icon.svg'), icon);
  const page = (await readFile(join(SOURCE, 'static/index.html'), 'utf8'))
    .replace('{{script}}', `/console/${script}`)
    .replace('{{style}}', `/console/${style}`)
    .replace('{{icon}}', '/console/assets/icon.svg');
  await writeFile(join(outDir, 'index.html'), page);

  // Served instead of the file when the browser accepts them (@fastify/static preCompressed).
  for (const file of [script, style, 'index.html']) {
    const data = await readFile(join(outDir, file));
    await writeFile(join(outDir, `${file}.br`), brotliCompressSync(data));
    await writeFile(join(outDir, `${file}.gz`), gzipSync(data, { level: 9 }));
  }
}

if (process.argv[1] && basename(process.argv[1]).startsWith('build')) {
  const out = process.argv[2] ?? fileURLToPath(new URL('../dist/console/', import.meta.url));
  await buildConsole(out);
  process.stdout.write(`console built into ${out}\n`);
}
