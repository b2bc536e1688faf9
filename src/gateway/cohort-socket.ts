import type { Server, Socket } from 'socket.io';
import type { ClientToServerEvents, ServerToClientEvents } from '@cohort/protocol';

/** The socket.io server and sockets typed with @cohort/protocol's event maps (docs/protocol.md). */
export type CohortServer = Server<ClientToServerEvents, ServerToClientEvents>;
export type CohortSocket = Socket<ClientToServerEvents, ServerToClientEvents>;
