import { SOCKET_REQUEST_SCHEMAS } from '@cohort/protocol/asyncapi/socket-request-schemas';
import { buildAsyncApiDocument } from '@cohort/protocol/asyncapi';
import { RequestEvent } from '@cohort/protocol';
import { documentedRequestSchemas } from './documented-schemas';

describe("the AsyncAPI document's request schemas", () => {
  it('are the ones derived from the DTOs now (after changing a socket DTO, run npm run contract:generate)', () => {
    expect(SOCKET_REQUEST_SCHEMAS).toEqual(documentedRequestSchemas());
  });

  it('describe every request event by its DTO, with every nested shape they point to in the document', () => {
    const document = buildAsyncApiDocument() as { components: { schemas: Record<string, unknown> } };
    const derived = documentedRequestSchemas();
    for (const event of Object.values(RequestEvent))
      expect(document.components.schemas[`${event}Request`]).toEqual(derived[`${event}Request`]);
    const refs = JSON.stringify(document).match(/#\/components\/schemas\/\w+/g) ?? [];
    for (const ref of new Set(refs)) expect(document.components.schemas).toHaveProperty(ref.split('/').pop()!);
  });

  it("show an opaque field as the shape the coordinator reads for protocolType 'consumer'", () => {
    expect(documentedRequestSchemas().JoinGroupProtocol).toMatchObject({
      properties: { metadata: { $ref: '#/components/schemas/Subscription' } },
      required: ['name', 'metadata'],
    });
  });
});
