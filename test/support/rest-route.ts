/**
 * One REST route: its HTTP method and path template. The ACL-declaration spec reads them from the
 * controllers (`/v1/groups/:groupId`), the fuzzer from the OpenAPI document (`/v1/groups/{groupId}`).
 */
export interface RestRoute {
  method: string;
  path: string;
}
