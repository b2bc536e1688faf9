import { ApiProperty } from '@nestjs/swagger';
import type { RestError } from '@cohort/protocol';

/** Every REST error (docs/rest.md): the HTTP status, the Kafka error code and name, and a message. */
export class RestErrorResponse implements RestError {
  @ApiProperty({ example: 404, description: 'The HTTP status, again.' })
  statusCode: number;

  @ApiProperty({ example: 69, description: "Kafka's error code (docs/protocol.md lists them)." })
  errorCode: number;

  @ApiProperty({ example: 'GROUP_ID_NOT_FOUND', description: "Kafka's error name." })
  error: string;

  @ApiProperty({ example: 'group nope does not exist' })
  message: string;
}
