import type { App } from '../app.js';
import { resource } from '../resource.js';

/** The OpenAPI document, generated from the same schemas that validate requests. */
export function docsRoutes(app: App): void {
  resource(app, '/openapi.json', {
    GET: { schema: { hide: true }, handler: async () => app.swagger() },
  });
}
