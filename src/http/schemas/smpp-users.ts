import { Type } from '@sinclair/typebox';
import { MAX_BINDS_MAX, PASSWORD_MAX, SYSTEM_ID_MAX, WINDOW_MAX } from '../../app/smpp-users.js';
import { DateTime } from './common.js';
import { AccountId } from './admin.js';

export const SmppUserBody = Type.Object(
  {
    system_id: Type.String({
      minLength: 1,
      maxLength: SYSTEM_ID_MAX,
      description: 'What the customer binds with (SMPP 3.4: at most 15 characters); unique across accounts',
      examples: ['shop'],
    }),
    password: Type.String({
      minLength: 1,
      maxLength: PASSWORD_MAX,
      description: 'Bind password (SMPP 3.4: at most 8 characters); stored only as a hash',
      examples: ['s3cret'],
    }),
    max_binds: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_BINDS_MAX,
        description: 'Binds open at once across all nodes; default 4',
      }),
    ),
    window: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: WINDOW_MAX,
        description: 'Requests one bind may have unanswered; more get ESME_RTHROTTLED. Default 10',
      }),
    ),
  },
  { $id: 'SmppUserRequest', description: 'SMPP credentials of an account (decisions §21)' },
);

export const SmppUserView = Type.Object(
  {
    accountID: AccountId,
    system_id: Type.String(),
    max_binds: Type.Integer(),
    window: Type.Integer(),
    created_at: DateTime('When the credentials were first set'),
    updated_at: DateTime('When they last changed'),
  },
  { $id: 'SmppUser', description: 'The account may bind to the SMPP server with these (password not shown)' },
);

export const SmppUserRemoved = Type.Object(
  { accountID: AccountId, removed: Type.Literal(true) },
  {
    $id: 'RemovedSmppUser',
    description: 'The account can no longer bind; a bind open now is unbound at its next request',
  },
);
