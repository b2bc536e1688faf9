import { Controller, Get, Header } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { stringify } from 'yaml';
import { buildAsyncApiDocument } from '@cohort/protocol/asyncapi';
import { NodeAddress } from '../node/node-address';
import { PublicRoute } from '../security/authorization/route-acl.decorator';

/**
 * The AsyncAPI 3 document of the socket.io protocol beside the OpenAPI one (/docs), naming this node
 * as its server. Built on first use: the listener's port is only known once the node listens. Public,
 * as the OpenAPI document is (docs/security.md): it describes the protocol, not the cluster.
 */
@ApiExcludeController()
@Controller('docs')
@PublicRoute()
export class AsyncApiController {
  private document: { url: string; json: string; yaml: string } | null = null;

  constructor(private readonly address: NodeAddress) {}

  @Get('asyncapi.json')
  @Header('Content-Type', 'application/json; charset=utf-8')
  json(): string {
    return this.current().json;
  }

  @Get('asyncapi.yaml')
  @Header('Content-Type', 'application/yaml; charset=utf-8')
  yaml(): string {
    return this.current().yaml;
  }

  private current(): { json: string; yaml: string } {
    const url = this.address.url();
    if (this.document?.url !== url) {
      const document = buildAsyncApiDocument({ url });
      this.document = {
        url,
        json: JSON.stringify(document, null, 2),
        yaml: stringify(document, { aliasDuplicateObjects: false }),
      };
    }
    return this.document;
  }
}
