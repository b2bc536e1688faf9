import fc from 'fast-check';
import { type AclBinding, ErrorCode, KafkaError } from '@cohort/protocol';
import { validateBinding, validateFilter } from './acl-validation';

const GOOD: AclBinding = {
  principal: 'User:alice',
  host: '*',
  resourceType: 'GROUP',
  resourceName: 'payments',
  patternType: 'LITERAL',
  operation: 'READ',
  permission: 'ALLOW',
};

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(KafkaError);
    expect((error as KafkaError).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    return (error as KafkaError).message;
  }
  throw new Error('expected a refusal');
}

describe('ACL binding validation', () => {
  it('accepts a full binding and returns only its fields', () => {
    expect(validateBinding({ ...GOOD }, 'acls.0')).toEqual(GOOD);
    expect(validateBinding({ ...GOOD, host: '10.1.2.3' }, 'acls.0').host).toBe('10.1.2.3');
    expect(validateBinding({ ...GOOD, host: '::1' }, 'acls.0').host).toBe('::1');
    expect(validateBinding({ ...GOOD, principal: 'User:*', resourceName: '*' }, 'acls.0')).toMatchObject({
      principal: 'User:*',
      resourceName: '*',
    });
    expect(
      validateBinding({ ...GOOD, resourceType: 'CLUSTER', resourceName: 'kafka-cluster', operation: 'ALTER' }, 'acls.0')
        .resourceType,
    ).toBe('CLUSTER');
  });

  it.each([
    [{ ...GOOD, principal: 'alice' }, "acls.0.principal must be 'User:<name>'"],
    [{ ...GOOD, principal: 'User:' }, "acls.0.principal must be 'User:<name>'"],
    [{ ...GOOD, host: 'example.com' }, "acls.0.host must be '*' or one IP address"],
    [{ ...GOOD, resourceType: 'TRANSACTIONAL_ID' }, 'acls.0.resourceType must be one of GROUP, TOPIC, CLUSTER'],
    [{ ...GOOD, resourceName: '' }, 'acls.0.resourceName must be 1-1024 characters'],
    [{ ...GOOD, patternType: 'MATCH' }, 'acls.0.patternType must be one of LITERAL, PREFIXED'],
    [{ ...GOOD, operation: 'read' }, 'acls.0.operation must be one of'],
    [{ ...GOOD, permission: 'MAYBE' }, 'acls.0.permission must be one of ALLOW, DENY'],
    [{ ...GOOD, operation: 'WRITE' }, 'acls.0.operation WRITE does not apply to GROUP'],
    [{ ...GOOD, resourceType: 'CLUSTER', operation: 'ALTER' }, "the CLUSTER resource is LITERAL 'kafka-cluster'"],
    [{ ...GOOD, patternType: 'PREFIXED', resourceName: '*' }, "use patternType LITERAL with resourceName '*'"],
    [{ ...GOOD, extra: 1 }, 'acls.0.extra is not a field of a binding'],
    [{ ...GOOD, operation: 3 }, 'acls.0.operation must be a string'],
    [(({ permission: _, ...rest }) => rest)(GOOD), 'acls.0.permission is required'],
    [null, 'acls.0 must be an object'],
    [['x'], 'acls.0 must be an object'],
  ])('refuses %j naming the problem', (value, message) => {
    expect(refusal(() => validateBinding(value, 'acls.0'))).toContain(message);
  });

  it('names every problem of a binding at once', () => {
    const message = refusal(() => validateBinding({ principal: 'bob', host: 'nowhere' }, 'acls.3'));
    expect(message).toContain('acls.3.principal');
    expect(message).toContain('acls.3.host');
    expect(message).toContain('acls.3.operation is required');
  });

  it('accepts filters with any subset of fields, checking the ones given', () => {
    expect(validateFilter({}, 'filters.0')).toEqual({});
    expect(validateFilter({ principal: 'User:alice', resourceType: 'TOPIC' }, 'filters.0')).toEqual({
      principal: 'User:alice',
      resourceType: 'TOPIC',
    });
    expect(refusal(() => validateFilter({ resourceType: 'USER' }, 'filters.1'))).toContain(
      'filters.1.resourceType must be one of',
    );
  });

  it('never throws anything but INVALID_REQUEST, and returns only valid bindings, for arbitrary input', () => {
    const field = fc.oneof(
      fc.constantFrom(
        ...Object.values(GOOD),
        'CLUSTER',
        'kafka-cluster',
        'PREFIXED',
        'DENY',
        'ALL',
        'User:*',
        '10.0.0.1',
      ),
      fc.anything(),
    );
    const candidate = fc.oneof(
      fc.anything(),
      fc.record(
        {
          principal: field,
          host: field,
          resourceType: field,
          resourceName: field,
          patternType: field,
          operation: field,
          permission: field,
        },
        { requiredKeys: [] },
      ),
    );
    fc.assert(
      fc.property(candidate, (value) => {
        try {
          const binding = validateBinding(value, 'acls.0');
          expect(Object.keys(binding).sort()).toEqual(Object.keys(GOOD).sort());
        } catch (error) {
          expect(error).toBeInstanceOf(KafkaError);
          expect((error as KafkaError).errorCode).toBe(ErrorCode.INVALID_REQUEST);
        }
      }),
      { numRuns: 500 },
    );
  });
});
