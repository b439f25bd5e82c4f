import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import type { App } from '../app.js';
import { errorBody } from '../errors.js';

/**
 * The web console (decisions §22): a single page with hashed assets, built by `npm run build`
 * into dist/console. The page is revalidated on every load, so a new build shows at once; its
 * assets carry their content hash in the name and are cached for a year.
 */
export async function consoleRoutes(app: App, dir: string | null): Promise<void> {
  const built = dir !== null && existsSync(join(dir, 'index.html'));
  const hide = { schema: { hide: true } };

  if (!built) {
    const notBuilt = (_: unknown, reply: FastifyReply) =>
      reply.code(404).send(errorBody.notFound('The web console is not built; run npm run build'));
    app.get('/console', hide, notBuilt);
    app.get('/console/*', hide, notBuilt);
    return;
  }

  app.addHook('onSend', async (_request, reply) => {
    // Everything the page loads is its own: no inline script or style, no other origin.
    reply.header(
      'content-security-policy',
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
  });

  await app.register(fastifyStatic, {
    root: dir,
    prefix: '/console/',
    index: false,
    preCompressed: true,
    cacheControl: false,
    setHeaders(res, path) {
      res.setHeader(
        'cache-control',
        path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });

  // With the router's ignoreTrailingSlash both spellings reach this route; the page's relative
  // links need the slash, so the bare one is redirected.
  app.get('/console/', hide, (request, reply) => {
    if (!request.url.split('?')[0]!.endsWith('/')) return reply.redirect('/console/', 301);
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  });
}
