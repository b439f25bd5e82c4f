import { addSuppression, listSuppressions, removeSuppression } from '../../app/suppressions.js';
import type { App, AppDeps } from '../app.js';
import { accountOf, requireAccount } from '../auth.js';
import { resource } from '../resource.js';
import { BadRequestBody, ForbiddenBody, NotFoundBody, publicErrors } from '../schemas/errors.js';
import {
  SuppressionList,
  SuppressionListQuery,
  SuppressionParams,
  SuppressionView,
} from '../schemas/suppressions.js';

/** The account's suppression list (decisions §17): numbers it never sends to. */
export function suppressionRoutes(app: App, deps: AppDeps): void {
  const { store } = deps;
  const auth = requireAccount(store);
  const security = [{ apiKey: [] }];
  const tags = ['suppressions'];

  resource(app, '/suppressions', {
    GET: {
      onRequest: auth,
      schema: {
        operationId: 'listSuppressions',
        tags,
        summary: "List the account's suppressed numbers, oldest first",
        security,
        querystring: SuppressionListQuery,
        response: { 200: SuppressionList, 400: BadRequestBody, ...publicErrors },
      },
      handler: (request) => listSuppressions(store, accountOf(request).id, request.query),
    },
  });

  resource(app, '/suppressions/:msisdn', {
    PUT: {
      onRequest: auth,
      schema: {
        operationId: 'addSuppression',
        tags,
        summary: 'Suppress a number: the account never sends to it again until it is removed',
        description:
          'Adds the number with reason manual; a number already listed keeps its entry. Recipients of later ' +
          'sends that are on the list are aborted with code 421 and cost nothing.',
        security,
        params: SuppressionParams,
        response: { 200: SuppressionView, 403: ForbiddenBody, 404: NotFoundBody, ...publicErrors },
      },
      handler: (request) => addSuppression(store, accountOf(request).id, request.params.msisdn, deps.now()),
    },
    DELETE: {
      onRequest: auth,
      schema: {
        operationId: 'removeSuppression',
        tags,
        summary: 'Take a number off the suppression list',
        description: 'Answers with the entry removed; 404 when the number was not listed.',
        security,
        params: SuppressionParams,
        response: { 200: SuppressionView, 403: ForbiddenBody, 404: NotFoundBody, ...publicErrors },
      },
      handler: (request) => removeSuppression(store, accountOf(request).id, request.params.msisdn),
    },
  });
}
