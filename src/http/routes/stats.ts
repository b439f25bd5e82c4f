import type { Stats } from '../../app/stats.js';
import { formatDateTime } from '../../domain/dates.js';
import type { App } from '../app.js';
import { adminErrors } from '../schemas/errors.js';
import { StatsView } from '../schemas/stats.js';
import { resource } from '../resource.js';

/** The live dashboard's figures; registered inside adminRoutes, behind the admin token. */
export function statsRoutes(app: App, stats: () => Promise<Stats>): void {
  resource(app, '/stats', {
    GET: {
      schema: {
        operationId: 'getStats',
        tags: ['admin'],
        security: [{ adminToken: [] }],
        summary: 'Cumulative counters and current gauges of the whole store, and each connector on this node',
        response: { 200: StatsView, ...adminErrors },
      },
      handler: async () => {
        const s = await stats();
        return { ...s, at: formatDateTime(s.at), connectors: [...s.connectors] };
      },
    },
  });
}
