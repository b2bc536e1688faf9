import { Injectable, type NestMiddleware } from '@nestjs/common';
import { KafkaError, requestDepthProblem } from '@cohort/protocol';

type NextFunction = (error?: unknown) => void;

/**
 * REST's check of a parsed JSON body's depth, before forwarding, guards, pipes or logging walk it: a
 * body nested thousands of levels deep is 400 INVALID_REQUEST (as a socket.io payload is, in
 * request-guard.ts), where class-transformer would overflow its stack into a 500. Bound for every route.
 */
@Injectable()
export class RequestDepthMiddleware implements NestMiddleware {
  use(request: { body?: unknown }, _response: unknown, next: NextFunction): void {
    const problem = requestDepthProblem(request.body);
    if (problem !== null) throw KafkaError.of('INVALID_REQUEST', problem);
    next();
  }
}
