/** `@cohort/protocol/asyncapi`: the AsyncAPI 3 document of the socket.io protocol, as a plain object. */
export { buildAsyncApiDocument, type AsyncApiOptions } from './asyncapi/asyncapi-document';
export { REQUEST_MESSAGES, PUSH_MESSAGES, SHARED_SCHEMAS, type RequestMessage } from './asyncapi/socket-messages';
export type { JsonSchema } from './asyncapi/json-schema';
