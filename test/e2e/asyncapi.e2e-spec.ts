import { Parser } from '@asyncapi/parser';
import { parse } from 'yaml';
import { PushEvent, RequestEvent } from '@cohort/protocol';
import { appPerFile } from '../support/app-per-file';

jest.setTimeout(60_000);

/** The socket.io protocol's AsyncAPI 3 document, served beside the OpenAPI one. */
describe('AsyncAPI document (e2e)', () => {
  const app = appPerFile();

  it('is served as JSON and YAML, names this node, and describes every request with its ack and every push', async () => {
    const json = await app
      .http()
      .get('/docs/asyncapi.json')
      .expect(200)
      .expect('content-type', /application\/json/);
    const yaml = await app
      .http()
      .get('/docs/asyncapi.yaml')
      .expect(200)
      .expect('content-type', /application\/yaml/);
    const document = json.body;
    expect(parse(yaml.text)).toEqual(document);
    expect(document.asyncapi).toMatch(/^3\./);
    expect(document.servers.node).toMatchObject({
      host: new URL(app.url).host,
      protocol: 'ws',
      pathname: '/socket.io/',
    });
    for (const event of Object.values(RequestEvent)) {
      expect(document.operations[event]).toMatchObject({
        action: 'receive',
        reply: { messages: [{ $ref: `#/channels/coordinator/messages/${event}Response` }] },
      });
      expect(document.components.schemas[`${event}Request`]).toBeDefined();
    }
    for (const event of Object.values(PushEvent)) expect(document.operations[event]).toMatchObject({ action: 'send' });
    expect(Object.keys(document.operations).sort()).toEqual(
      [...Object.values(RequestEvent), ...Object.values(PushEvent)].sort(),
    );
  });

  it('is a valid AsyncAPI document', async () => {
    const served = await app.http().get('/docs/asyncapi.json').expect(200);
    const { document, diagnostics } = await new Parser().parse(served.text);
    const errors = diagnostics
      .filter((diagnostic) => diagnostic.severity === 0)
      .map((d) => `${d.path.join('.')}: ${d.message}`);
    expect(errors).toEqual([]);
    expect(
      document
        ?.operations()
        .all()
        .map((operation) => operation.id())
        .sort(),
    ).toEqual([...Object.values(RequestEvent), ...Object.values(PushEvent)].sort());
  });

  it('leaves the OpenAPI document in place and points to the AsyncAPI one from it', async () => {
    const openApi = await app.http().get('/docs-json').expect(200);
    expect(openApi.body.info.description).toContain('/docs/asyncapi.json');
    expect(Object.keys(openApi.body.paths)).not.toContain('/docs/asyncapi.json');
  });
});
