/** One entry of a leader-epoch cache: the first offset written in `epoch`. */
export interface EpochEntry {
  epoch: number;
  startOffset: number;
}

/** The answer to "where does epoch E end?" (OffsetsForLeaderEpoch / endOffsetFor): -1/-1 when unknown. */
export interface EpochEndOffset {
  epoch: number;
  endOffset: number;
}

export const UNDEFINED_EPOCH_END: EpochEndOffset = { epoch: -1, endOffset: -1 };
