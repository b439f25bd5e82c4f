/** Top-level OpenAPI fields; paths come from the route schemas that also validate requests. */
export const openApiInfo = {
  openapi: '3.0.3',
  info: {
    title: 'smsgw — Bulk SMS Messaging Service',
    version: '1.0.0',
    description:
      'Send SMS to one or more recipients, read outbound and inbound messages, and receive delivery reports and ' +
      'inbound messages by webhook. Authenticate with `Authorization: Bearer <key>`. The admin API under ' +
      '/admin/v1 uses `Authorization: Bearer $SMSGW_ADMIN_TOKEN`.',
  },
  servers: [{ url: '/' }],
  components: {
    securitySchemes: {
      apiKey: { type: 'http' as const, scheme: 'bearer', description: 'An API key of the account' },
      adminToken: { type: 'http' as const, scheme: 'bearer', description: 'SMSGW_ADMIN_TOKEN' },
      metricsToken: { type: 'http' as const, scheme: 'bearer', description: 'SMSGW_METRICS_TOKEN' },
    },
  },
  tags: [
    { name: 'outbound', description: 'Sending and reading outbound messages' },
    { name: 'inbound', description: 'Reading inbound messages' },
    { name: 'admin', description: 'Accounts, keys, senders, numbers, webhooks and the simulator' },
    { name: 'operations', description: 'Health and readiness probes and Prometheus metrics (no API key)' },
  ],
};
