import type { Static } from '@sinclair/typebox';
import {
  addRoute,
  connectorView,
  createConnector,
  requireConnector,
  routeView,
  updateConnector,
  type ConnectorSettingsInput,
} from '../../app/connectors.js';
import { NotFoundError } from '../../domain/errors.js';
import type { App, AppDeps } from '../app.js';
import { AlreadyExistsError } from '../errors.js';
import { connectorState } from '../connector-state.js';
import { resource } from '../resource.js';
import {
  ConnectorList,
  ConnectorParams,
  ConnectorView,
  CreateConnectorBody,
  CreateRouteBody,
  PatchConnectorBody,
  RemovedConnector,
  RemovedRoute,
  RouteList,
  RouteParams,
  RouteView,
} from '../schemas/connectors.js';
import { ConflictBody, NotFoundBody, adminErrors, bodyErrors } from '../schemas/errors.js';

type Settings = Static<typeof PatchConnectorBody>;

function settingsInput(body: Settings): ConnectorSettingsInput {
  return {
    host: body.host,
    port: body.port,
    systemId: body.system_id,
    password: body.password,
    systemType: body.system_type,
    bindMode: body.bind_mode,
    tls: body.tls,
    window: body.window,
    throughput: body.throughput,
    sourceTon: body.source_ton,
    sourceNpi: body.source_npi,
    destTon: body.dest_ton,
    destNpi: body.dest_npi,
    defaultDataCoding: body.default_data_coding,
    concatenation: body.concatenation,
    requestReceipts: body.request_receipts,
    enabled: body.enabled,
    maxBinds: body.max_binds,
  };
}

/**
 * SMPP connectors and routes (`/admin/v1/connectors`, `/admin/v1/routes`). Registered inside
 * adminRoutes, whose hook requires the admin token. Every change tells the router to reload.
 */
export function connectorRoutes(app: App, deps: AppDeps): void {
  const { store, now } = deps;
  const base = { tags: ['admin'], security: [{ adminToken: [] }] };
  const onConnector = { 404: NotFoundBody, ...adminErrors };
  const states = async (): Promise<Record<string, unknown>> => (await deps.connectorStates?.()) ?? {};
  const stateOf = async (name: string) => connectorState((await states())[name]);
  const changed = () => deps.onRoutingChanged?.();

  resource(app, '/connectors', {
    GET: {
      schema: {
        ...base,
        operationId: 'listConnectors',
        summary: 'List SMPP connectors with their live state',
        response: { 200: ConnectorList, ...adminErrors },
      },
      handler: async () => {
        const live = await states();
        const connectors = await store.connectors.list();
        return {
          connectors: connectors.map((c) => ({ ...connectorView(c), state: connectorState(live[c.name]) })),
        };
      },
    },
    POST: {
      schema: {
        ...base,
        operationId: 'createConnector',
        summary: 'Add an SMPP connector',
        body: CreateConnectorBody,
        response: { 201: ConnectorView, ...bodyErrors, 409: ConflictBody, ...adminErrors },
      },
      handler: async (request, reply) => {
        const { body } = request;
        const created = await createConnector(store, { name: body.name, ...settingsInput(body) }, now());
        if (!created) throw new AlreadyExistsError(`A connector named ${body.name} exists`);
        changed();
        return reply.code(201).send({ ...connectorView(created), state: await stateOf(created.name) });
      },
    },
  });

  resource(app, '/connectors/:name', {
    GET: {
      schema: {
        ...base,
        operationId: 'getConnector',
        summary: 'Read an SMPP connector with its live state',
        params: ConnectorParams,
        response: { 200: ConnectorView, ...onConnector },
      },
      handler: async (request) => {
        const { name } = request.params;
        const connector = await requireConnector(store, name);
        return { ...connectorView(connector), state: await stateOf(connector.name) };
      },
    },
    PATCH: {
      schema: {
        ...base,
        operationId: 'updateConnector',
        summary: 'Change an SMPP connector; it rebinds with the new settings',
        params: ConnectorParams,
        body: PatchConnectorBody,
        response: { 200: ConnectorView, ...bodyErrors, ...onConnector },
      },
      handler: async (request) => {
        const { name } = request.params;
        const connector = await requireConnector(store, name);
        const updated = await updateConnector(store, connector.name, settingsInput(request.body), now());
        if (!updated) throw new NotFoundError(`There is no connector named ${name}`);
        changed();
        return { ...connectorView(updated), state: await stateOf(updated.name) };
      },
    },
    DELETE: {
      schema: {
        ...base,
        operationId: 'deleteConnector',
        summary: 'Remove an SMPP connector and its routes',
        params: ConnectorParams,
        response: { 200: RemovedConnector, ...onConnector },
      },
      handler: async (request) => {
        const { name } = request.params;
        const connector = await requireConnector(store, name);
        if (!(await store.connectors.remove(connector.name)))
          throw new NotFoundError(`There is no connector named ${name}`);
        changed();
        return { name: connector.name, removed: true as const };
      },
    },
  });

  resource(app, '/routes', {
    GET: {
      schema: {
        ...base,
        operationId: 'listRoutes',
        summary: 'List routes in the order they are tried',
        response: { 200: RouteList, ...adminErrors },
      },
      handler: async () => ({ routes: (await store.connectors.listRoutes()).map(routeView) }),
    },
    POST: {
      schema: {
        ...base,
        operationId: 'createRoute',
        summary: 'Route destinations starting with a prefix to a connector',
        body: CreateRouteBody,
        response: { 201: RouteView, ...bodyErrors, 409: ConflictBody, ...adminErrors },
      },
      handler: async (request, reply) => {
        const { body } = request;
        const route = await addRoute(store, body, now());
        if (!route) throw new AlreadyExistsError(`${body.connector} already has a route for ${body.prefix}`);
        changed();
        return reply.code(201).send(routeView(route));
      },
    },
  });

  resource(app, '/routes/:routeID', {
    DELETE: {
      schema: {
        ...base,
        operationId: 'deleteRoute',
        summary: 'Remove a route',
        params: RouteParams,
        response: { 200: RemovedRoute, 404: NotFoundBody, ...adminErrors },
      },
      handler: async (request) => {
        const { routeID } = request.params;
        if (!(await store.connectors.removeRoute(routeID)))
          throw new NotFoundError('No route with that routeID');
        changed();
        return { routeID, removed: true as const };
      },
    },
  });
}
