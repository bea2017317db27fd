/** A sensor group's data-sharing configurations, at cbapi's paths (reference core §7.1). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ResultSuccess } from '../../http/schemas.js';
import type { DataSharingService } from './datasharing.service.js';
import {
  DataSharingConfig, DataSharingConfigParams, DataSharingCreateBody, DataSharingGroupParams,
} from './datasharing.schemas.js';

const PATH = '/api/v1/group/:id/datasharing';

export const dataSharingRoutes: FastifyPluginAsyncTypebox<{ dataSharing: DataSharingService }> = async (app, { dataSharing }) => {
  const tags = ['groups'];

  app.get(PATH, {
    schema: {
      tags, summary: 'The group\'s data-sharing configurations; an empty list when it shares nothing',
      params: DataSharingGroupParams, response: { 200: Type.Array(DataSharingConfig) },
    },
  }, (request) => dataSharing.list(request.principal, request.params.id));

  app.post(PATH, {
    schema: {
      tags, summary: 'Share the group\'s data of one kind (what) with one party (who) (global admin); answers the configuration',
      params: DataSharingGroupParams, body: DataSharingCreateBody, response: { 200: DataSharingConfig },
    },
  }, (request) => dataSharing.create(request.principal, request.params.id, request.body));

  app.delete(PATH, {
    schema: {
      tags, summary: 'Remove every data-sharing configuration of the group (global admin)',
      params: DataSharingGroupParams, response: { 200: ResultSuccess },
    },
  }, (request) => dataSharing.deleteAll(request.principal, request.params.id));

  app.get(`${PATH}/:configId`, {
    schema: { tags, summary: 'One data-sharing configuration of the group', params: DataSharingConfigParams, response: { 200: DataSharingConfig } },
  }, (request) => dataSharing.get(request.principal, request.params.id, request.params.configId));

  app.delete(`${PATH}/:configId`, {
    schema: {
      tags, summary: 'Remove one data-sharing configuration (global admin); answers the configuration removed',
      params: DataSharingConfigParams, response: { 200: DataSharingConfig },
    },
  }, (request) => dataSharing.delete(request.principal, request.params.id, request.params.configId));
};
