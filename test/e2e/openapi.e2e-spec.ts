import { appPerFile } from '../support/app-per-file';
import { connect, request as emit } from '../support/socket-client';

jest.setTimeout(60_000);

interface Schema {
  $ref?: string;
  type?: string;
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  enum?: unknown[];
}
interface Operation {
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
  security?: Record<string, string[]>[];
}
interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes?: Record<string, Record<string, string>> };
}

/**
 * The OpenAPI document every node serves at /docs-json (Swagger UI at /docs): every route describes its
 * success and its errors (`{ statusCode, errorCode, error, message }`) and the bearer scheme, so Swagger
 * has an Authorize button; and what the routes answer has the shapes the document describes.
 */
describe('the OpenAPI document (e2e)', () => {
  const app = appPerFile({ topics: { orders: 2 } });
  let doc: OpenApiDocument;
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        route: `${method.toUpperCase()} ${path}`,
        path,
        operation,
      })),
    );
  const resolve = (schema: Schema): Schema =>
    schema.$ref ? resolve(doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]) : schema;

  beforeAll(async () => {
    doc = (await app.http().get('/docs-json').expect(200)).body as OpenApiDocument;
  });

  it('declares the bearer scheme', () => {
    expect(doc.components.securitySchemes?.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('gives every route its success response with a schema, its errors with the error shape, and the bearer security', () => {
    const routes = operations();
    expect(routes.length).toBeGreaterThanOrEqual(24);
    const problems: string[] = [];
    for (const { route, path, operation } of routes) {
      const statuses = Object.keys(operation.responses);
      const success = statuses.filter((s) => /^2\d\d$/.test(s));
      if (success.length === 0) problems.push(`${route}: no success response`);
      for (const status of success) {
        if (status !== '204' && !operation.responses[status].content?.['application/json']?.schema)
          problems.push(`${route}: ${status} has no schema`);
      }
      if (path.startsWith('/health/')) {
        // Probes are open and answer terminus's shape: 200 up, 503 down.
        if (operation.security !== undefined) problems.push(`${route}: a probe needs no credential`);
        for (const status of ['200', '503'])
          if (!operation.responses[status]?.content) problems.push(`${route}: no ${status} schema`);
        continue;
      }
      if (JSON.stringify(operation.security) !== JSON.stringify([{ bearer: [] }]))
        problems.push(`${route}: security is ${JSON.stringify(operation.security)}`);
      const required = ['401', '403', '429'];
      const hasInput =
        operation.requestBody !== undefined || (operation.parameters ?? []).some((p) => p.in === 'query');
      if (hasInput) required.push('400');
      if (path.includes('{groupId}')) required.push('404', '503');
      for (const status of required) if (!statuses.includes(status)) problems.push(`${route}: no ${status} response`);
      for (const status of statuses.filter((s) => /^[45]\d\d$/.test(s))) {
        const schema = operation.responses[status].content?.['application/json']?.schema;
        if (schema?.$ref !== '#/components/schemas/RestErrorResponse')
          problems.push(`${route}: ${status} is not { statusCode, errorCode, error, message }`);
      }
    }
    expect(problems).toEqual([]);
    expect(resolve({ $ref: '#/components/schemas/RestErrorResponse' }).required?.sort()).toEqual([
      'error',
      'errorCode',
      'message',
      'statusCode',
    ]);
  });

  /** Where `value` does not have the shape `schema` describes (required fields, no undescribed ones, types). */
  function mismatches(schema: Schema, value: unknown, at: string): string[] {
    const s = resolve(schema);
    if (value === null) return s.nullable ? [] : [`${at}: null where the document does not allow it`];
    if (s.type === 'array') {
      if (!Array.isArray(value)) return [`${at}: not an array`];
      return value.flatMap((item, i) => (s.items ? mismatches(s.items, item, `${at}[${i}]`) : []));
    }
    if (s.type === 'integer' || s.type === 'number') return typeof value === 'number' ? [] : [`${at}: not a number`];
    if (s.type === 'string') return typeof value === 'string' ? [] : [`${at}: not a string`];
    if (s.type === 'boolean') return typeof value === 'boolean' ? [] : [`${at}: not a boolean`];
    if (s.properties) {
      if (typeof value !== 'object') return [`${at}: not an object`];
      const record = value as Record<string, unknown>;
      return [
        ...(s.required ?? []).filter((key) => !(key in record)).map((key) => `${at}.${key}: missing`),
        ...Object.keys(record)
          .filter((key) => !(key in s.properties!))
          .map((key) => `${at}.${key}: not in the document`),
        ...Object.entries(s.properties).flatMap(([key, property]) =>
          key in record ? mismatches(property, record[key], `${at}.${key}`) : [],
        ),
      ];
    }
    return [];
  }

  it('describes what the routes really answer', async () => {
    const http = app.http;
    await http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 50, startOffset: 1, timestamp: Date.now() - 1000 }] })
      .expect(200);
    const socket = await connect(app.url);
    try {
      await emit(socket, 'OffsetCommit', {
        groupId: 'shapes',
        generationId: -1,
        topics: [
          { name: 'orders', partitions: [0, 1].map((partitionIndex) => ({ partitionIndex, committedOffset: 5 })) },
        ],
      });
    } finally {
      socket.disconnect();
    }
    const calls: [string, string, () => Promise<{ status: number; body: unknown }>][] = [
      ['/v1/groups', 'get', () => http().get('/v1/groups')],
      ['/v1/groups/{groupId}', 'get', () => http().get('/v1/groups/shapes')],
      ['/v1/groups/{groupId}/rebalances', 'get', () => http().get('/v1/groups/shapes/rebalances')],
      ['/v1/groups/{groupId}/lag', 'get', () => http().get('/v1/groups/shapes/lag')],
      ['/v1/groups/{groupId}/offsets', 'get', () => http().get('/v1/groups/shapes/offsets')],
      [
        '/v1/groups/{groupId}/offsets/reset',
        'post',
        () => http().post('/v1/groups/shapes/offsets/reset').send({ allTopics: true, strategy: 'current' }),
      ],
      ['/v1/topics', 'get', () => http().get('/v1/topics')],
      ['/v1/topics/{name}', 'get', () => http().get('/v1/topics/orders')],
      ['/v1/coordinator', 'get', () => http().get('/v1/coordinator?groupId=shapes')],
      ['/v1/cluster', 'get', () => http().get('/v1/cluster')],
      ['/v1/cluster/partitions', 'get', () => http().get('/v1/cluster/partitions')],
      ['/v1/assignors', 'get', () => http().get('/v1/assignors')],
      [
        '/v1/assignors/{name}/assign',
        'post',
        () =>
          http()
            .post('/v1/assignors/range/assign')
            .send({ partitionsPerTopic: { orders: 2 }, members: [{ memberId: 'a', topics: ['orders', 'gone'] }] }),
      ],
      ['/v1/acls', 'get', () => http().get('/v1/acls')],
      // Errors too.
      ['/v1/groups/{groupId}', 'get', () => http().get('/v1/groups/nobody-here')],
      ['/v1/topics', 'post', () => http().post('/v1/topics').send({ name: 'bad name', partitions: 1 })],
    ];
    const problems: string[] = [];
    for (const [path, method, call] of calls) {
      const { status, body } = await call();
      const response = doc.paths[path][method].responses[String(status)];
      if (!response) {
        problems.push(`${method} ${path}: answered ${status}, which the document does not list`);
        continue;
      }
      problems.push(...mismatches(response.content!['application/json'].schema, body, `${method} ${path} ${status}`));
    }
    expect(problems).toEqual([]);
  });
});
