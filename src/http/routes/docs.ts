import type { FastifyInstance } from 'fastify';
import { resource } from '../resource.js';

/** The OpenAPI document, generated from the same schemas that validate requests. */
export function docsRoutes(app: FastifyInstance): void {
  resource(app, '/openapi.json', {
    GET: { schema: { hide: true }, handler: async () => app.swagger() },
  });
}
