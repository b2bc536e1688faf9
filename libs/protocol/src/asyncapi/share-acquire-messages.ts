/**
 * The share groups' data plane events (ShareAcquire, ShareAcknowledge) as JSON Schemas, beside
 * socket-messages.ts; their request schemas are derived from the gateway's DTOs.
 */
import { MAX_TOPIC_NAME_LENGTH } from '../limits';
import { arr, int, type JsonSchema, obj, response, str } from './json-schema';
import { SOCKET_REQUEST_SCHEMAS } from './socket-request-schemas';

const topic = str('A topic name.', { maxLength: MAX_TOPIC_NAME_LENGTH });
const partition = int('A partition of the topic.', { minimum: 0 });

/** Shaped as socket-messages.ts' RequestMessage (not imported: that file spreads this one in). */
interface ShareMessage {
  summary: string;
  request: JsonSchema;
  response: JsonSchema;
}

export const SHARE_ACQUIRE_MESSAGES: Record<'ShareAcquire' | 'ShareAcknowledge', ShareMessage> = {
  ShareAcquire: {
    summary:
      "Lease offset ranges of the member's assigned partitions (piggy-backed acknowledgements first); held up to maxWaitMs while nothing can be leased.",
    request: SOCKET_REQUEST_SCHEMAS.ShareAcquireRequest,
    response: response({
      acquisitionLockTimeoutMs: int('How long each lease holds its offsets unless renewed.'),
      partitions: arr(
        obj(
          {
            topic,
            partition,
            errorCode: int('29: the topic may not be read; else a write error (its leases were taken back).'),
            acknowledgeErrorCode: int(
              "The outcome of this partition's acknowledgements (3: not assigned to the member; 42: offsets not held).",
            ),
            leases: arr(
              obj({
                firstOffset: int(),
                lastOffset: int('Inclusive.'),
                deliveryCount: int('How many times these offsets were leased, this lease included.'),
              }),
            ),
          },
          {
            errorMessage: str('What went wrong; present when errorCode is not 0.'),
            acknowledgeErrorMessage: str(
              "What went wrong with this partition's acknowledgements; present when acknowledgeErrorCode is not 0.",
            ),
          },
        ),
      ),
    }),
  },
  ShareAcknowledge: {
    summary: 'Acknowledge leased offsets (gap, accept, release, reject, renew), answered once written.',
    request: SOCKET_REQUEST_SCHEMAS.ShareAcknowledgeRequest,
    response: response({
      partitions: arr(
        obj(
          { topic, partition, errorCode: int('3, 29, 42 (offsets not held by the member) or a write error.') },
          { errorMessage: str('What went wrong; present when errorCode is not 0.') },
        ),
      ),
    }),
  },
};
