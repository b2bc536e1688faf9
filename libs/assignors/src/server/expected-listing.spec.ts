import { expectedListing, sameListing } from './expected-listing';

describe('a target as the coordinator lists it back', () => {
  it('lists topics by name and partitions ascending, leaving out topics without partitions, frozen throughout', () => {
    const listing = expectedListing([
      { topic: 'orders', partitions: [17, 1, 16] },
      { topic: 'audit', partitions: [] },
      { topic: 'clicks', partitions: [40, 2] },
    ])!;
    expect(listing).toEqual([
      { topic: 'clicks', partitions: [2, 40] },
      { topic: 'orders', partitions: [1, 16, 17] },
    ]);
    expect(Object.isFrozen(listing) && listing.every((e) => Object.isFrozen(e) && Object.isFrozen(e.partitions))).toBe(
      true,
    );
  });

  it('sorts a long list of partitions too, and leaves the target it was given as it was', () => {
    const partitions = Array.from({ length: 100 }, (_, i) => (i * 37) % 100);
    const target = [{ topic: 't', partitions }];
    expect(expectedListing(target)![0].partitions).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(target[0].partitions).toEqual(Array.from({ length: 100 }, (_, i) => (i * 37) % 100));
  });

  it('gives up on a target naming a topic twice (it is read afresh)', () => {
    expect(
      expectedListing([
        { topic: 't', partitions: [1] },
        { topic: 't', partitions: [2] },
      ]),
    ).toBeNull();
  });

  it('knows a list only when it names the same partitions in the same order', () => {
    const listing = expectedListing([{ topic: 't', partitions: [3, 1] }])!;
    expect(sameListing([{ topic: 't', partitions: [1, 3] }], listing)).toBe(true);
    expect(sameListing([{ topic: 't', partitions: [3, 1] }], listing)).toBe(false);
    expect(sameListing([{ topic: 'u', partitions: [1, 3] }], listing)).toBe(false);
    expect(sameListing([{ topic: 't', partitions: [1] }], listing)).toBe(false);
    expect(sameListing([], listing)).toBe(false);
  });
});
