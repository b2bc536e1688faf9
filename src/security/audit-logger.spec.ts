import { AuditLogger, type AuditSink } from './audit-logger';

describe('AuditLogger', () => {
  it('writes one structured `audit` line per event, with principal, host, operation, resource and outcome', () => {
    const lines: { fields: object; message: string }[] = [];
    const sink: AuditSink = { info: (fields, message) => void lines.push({ fields, message }) };
    const audit = new AuditLogger(sink);
    const who = { principal: 'User:bob', host: '10.0.0.9' };
    audit.denied({ ...who, operation: 'READ', resourceType: 'GROUP', resourceName: 'payments', request: 'JoinGroup' });
    audit.changed({
      ...who,
      operation: 'DELETE',
      resourceType: 'GROUP',
      resourceName: 'payments',
      request: 'DeleteGroups',
    });
    audit.changed(
      {
        ...who,
        operation: 'DELETE',
        resourceType: 'GROUP',
        resourceName: 'busy',
        request: 'DeleteGroups',
        detail: 'NON_EMPTY_GROUP',
      },
      true,
    );
    expect(lines).toEqual([
      {
        message: 'audit',
        fields: {
          audit: {
            ...who,
            operation: 'READ',
            resourceType: 'GROUP',
            resourceName: 'payments',
            request: 'JoinGroup',
            outcome: 'DENIED',
          },
        },
      },
      {
        message: 'audit',
        fields: {
          audit: {
            ...who,
            operation: 'DELETE',
            resourceType: 'GROUP',
            resourceName: 'payments',
            request: 'DeleteGroups',
            outcome: 'SUCCEEDED',
          },
        },
      },
      {
        message: 'audit',
        fields: {
          audit: {
            ...who,
            operation: 'DELETE',
            resourceType: 'GROUP',
            resourceName: 'busy',
            request: 'DeleteGroups',
            detail: 'NON_EMPTY_GROUP',
            outcome: 'FAILED',
          },
        },
      },
    ]);
  });
});
