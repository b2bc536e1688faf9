import { controllerLeaseMsFor } from './replication-config';

describe('controllerLeaseMsFor', () => {
  it('gives a third of the node session, so a dead controller is replaced well before its nodes are fenced', () => {
    expect(controllerLeaseMsFor(6_000)).toBe(2_000);
    expect(controllerLeaseMsFor(9_000)).toBe(3_000);
  });

  it('gives at least a second, and never more than the session itself', () => {
    expect(controllerLeaseMsFor(3_000)).toBe(1_000);
    expect(controllerLeaseMsFor(2_000)).toBe(1_000);
    expect(controllerLeaseMsFor(500)).toBe(500);
  });
});
