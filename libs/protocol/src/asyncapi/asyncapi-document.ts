/**
 * The AsyncAPI 3 document of the socket.io protocol, served by every node at /docs/asyncapi.json and
 * /docs/asyncapi.yaml beside the REST OpenAPI document. It describes the node: a request is an
 * operation the node receives and answers with the acknowledgement (its `reply`); a push is one it sends.
 */
import { ErrorCode, isRetriable } from '../error-codes';
import { PushEvent, RequestEvent } from '../events';
import { int, type JsonSchema, obj, ref, str } from './json-schema';
import { PUSH_MESSAGES, REQUEST_MESSAGES, SHARED_SCHEMAS } from './socket-messages';
import { SOCKET_REQUEST_SCHEMAS } from './socket-request-schemas';

export interface AsyncApiOptions {
  /** The node's URL (ADVERTISED_URL), named as the document's server. */
  url?: string;
  version?: string;
}

const CHANNEL = 'coordinator';

function errorFields(): JsonSchema {
  const codes = Object.entries(ErrorCode).sort(([, a], [, b]) => a - b);
  const table = codes.map(([name, code]) => `${code} ${name}${isRetriable(code) ? ' (retriable)' : ''}`).join('; ');
  return obj(
    { errorCode: int(`Kafka error code, 0 = NONE: ${table}.`, { enum: codes.map(([, code]) => code) }) },
    {
      errorName: str('The Kafka name of errorCode; present when it is not 0.', { enum: codes.map(([name]) => name) }),
      errorMessage: str(
        'What went wrong, naming the bad fields for 42 INVALID_REQUEST; present when errorCode is not 0.',
      ),
    },
    'Carried by every acknowledgement.',
  );
}

function server(url: string): Record<string, unknown> {
  const parsed = new URL(url);
  return {
    host: parsed.host,
    protocol: parsed.protocol === 'https:' ? 'wss' : 'ws',
    pathname: '/socket.io/',
    description:
      "socket.io 4 on the node's HTTP port, default namespace, transport `websocket`: io(url, { transports: ['websocket'], auth: { clientId?, token? } }). Every request is an event with one payload object and an acknowledgement; an event no handler has is answered 42 INVALID_REQUEST naming it.",
  };
}

export function buildAsyncApiDocument(options: AsyncApiOptions = {}): Record<string, unknown> {
  const messages: Record<string, unknown> = {};
  const channelMessages: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  // The requests and the shapes nested in them, generated from the gateway's DTOs, beside the shared ones.
  const schemas: Record<string, JsonSchema> = {
    ErrorFields: errorFields(),
    ...SHARED_SCHEMAS,
    ...SOCKET_REQUEST_SCHEMAS,
  };
  const channelRef = { $ref: `#/channels/${CHANNEL}` };
  const messageRef = (name: string) => ({ $ref: `#/channels/${CHANNEL}/messages/${name}` });

  for (const event of Object.values(RequestEvent)) {
    const { summary, request, response } = REQUEST_MESSAGES[event];
    schemas[`${event}Request`] = request;
    schemas[`${event}Response`] = response;
    messages[event] = { name: event, title: `${event} request`, summary, payload: ref(`${event}Request`) };
    messages[`${event}Response`] = {
      name: `${event}Response`,
      title: `${event} acknowledgement`,
      payload: ref(`${event}Response`),
    };
    channelMessages[event] = { $ref: `#/components/messages/${event}` };
    channelMessages[`${event}Response`] = { $ref: `#/components/messages/${event}Response` };
    operations[event] = {
      action: 'receive',
      channel: channelRef,
      summary,
      messages: [messageRef(event)],
      reply: { channel: channelRef, messages: [messageRef(`${event}Response`)] },
    };
  }
  for (const event of Object.values(PushEvent)) {
    const { summary, payload } = PUSH_MESSAGES[event];
    schemas[`${event}Push`] = payload;
    messages[event] = { name: event, title: `${event} push`, summary, payload: ref(`${event}Push`) };
    channelMessages[event] = { $ref: `#/components/messages/${event}` };
    operations[event] = { action: 'send', channel: channelRef, summary, messages: [messageRef(event)] };
  }

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Cohort socket.io protocol',
      version: options.version ?? '0.1.0',
      description:
        "Kafka's classic consumer-group protocol over socket.io: events named after the Kafka APIs, Kafka's field names in camelCase and Kafka's error codes. See docs/protocol.md in the repository for the rules a client follows; the REST API is the OpenAPI document at /docs.",
      license: { name: 'Apache-2.0' },
    },
    servers: { node: server(options.url ?? 'http://localhost:3000') },
    defaultContentType: 'application/json',
    channels: {
      [CHANNEL]: {
        address: '/',
        title: 'Default namespace',
        description:
          'One socket per client connection; a member is bound to the connection that carried its last request.',
        messages: channelMessages,
      },
    },
    operations,
    components: { schemas, messages },
  };
}
