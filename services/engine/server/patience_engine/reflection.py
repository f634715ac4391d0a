"""gRPC server reflection, served as `grpc.reflection.v1` and as `grpc.reflection.v1alpha`.

grpcio-reflection implements the v1alpha service only, and newer tools (grpcurl, buf curl,
Postman) ask for v1 first. The v1 protocol is v1alpha under a new package name: the same
messages with the same field numbers, so the same bytes. The v1 service here is therefore
grpcio-reflection's own servicer registered a second time under the v1 name, its messages
read and written with the v1alpha classes. So that reflection can describe the v1 service
as well, the v1 file descriptor (v1alpha's with the package renamed) joins the default
descriptor pool.
"""

from __future__ import annotations

from collections.abc import Iterable

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc import aio
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

V1ALPHA_SERVICE_NAME: str = reflection.SERVICE_NAME
V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"
V1_FILE_NAME = "grpc/reflection/v1/reflection.proto"

__all__ = ["V1ALPHA_SERVICE_NAME", "V1_SERVICE_NAME", "enable_server_reflection"]


def _v1_file() -> descriptor_pb2.FileDescriptorProto:
    """grpc/reflection/v1/reflection.proto: v1alpha's file with the package renamed."""
    file = descriptor_pb2.FileDescriptorProto.FromString(reflection_pb2.DESCRIPTOR.serialized_pb)
    old, new = f".{file.package}.", f".{V1_PACKAGE}."
    file.name, file.package = V1_FILE_NAME, V1_PACKAGE
    file.ClearField("options")  # v1alpha's language options name v1alpha packages
    for message in file.message_type:
        for field in message.field:
            if field.type_name:
                field.type_name = field.type_name.replace(old, new, 1)
    for service in file.service:
        for method in service.method:
            method.input_type = method.input_type.replace(old, new, 1)
            method.output_type = method.output_type.replace(old, new, 1)
    return file


def _add_v1_descriptor() -> None:
    pool = descriptor_pool.Default()
    try:
        pool.FindFileByName(V1_FILE_NAME)
    except KeyError:
        pool.Add(_v1_file())


def enable_server_reflection(service_names: Iterable[str], server: aio.Server) -> None:
    """Serves reflection (v1 and v1alpha) for `service_names` and for reflection itself."""
    _add_v1_descriptor()
    servicer = reflection.aio.ReflectionServicer(
        (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    )
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1_method = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                V1_SERVICE_NAME, {"ServerReflectionInfo": v1_method}
            ),
        )
    )
