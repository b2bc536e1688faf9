import type { SecurityConfig } from '../config/security-config';
import { isLoopback } from './client-address';

/**
 * Redis's protected mode for Cohort: while no authentication is configured, only clients on this
 * machine's loopback may use socket.io or REST. The refusal says how to get out of it, as Redis's
 * `-DENIED` line does, since the operator reading it is the one who can fix it.
 */
export function protectedModeRefusal(security: SecurityConfig, address: string | undefined): string | null {
  if (!security.protectedMode || security.authenticationEnabled || isLoopback(address)) return null;
  return (
    `Cohort is running in protected mode because no authentication is configured: only loopback clients are accepted (you are ${address || 'unknown'}). ` +
    'To accept this client, turn authentication on with AUTH_TOKENS_FILE, AUTH_JWT_SECRET, AUTH_JWT_PUBLIC_KEY_FILE, AUTH_JWT_JWKS_FILE or TLS_CLIENT_AUTH=required ' +
    '(see README "Security"), or set PROTECTED_MODE=false if the network in front of this node is trusted.'
  );
}
