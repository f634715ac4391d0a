"""Server reflection answers as grpc.reflection.v1 (what current tools ask first) and as
v1alpha, for the engine, health, reflection itself and the error detail types."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from patience_engine.reflection import V1_FILE_NAME, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME

from tests.engine.helpers import EngineThread

ENGINE = "solitaire.v1.EngineService"


def _v1_message(name: str) -> Any:
    """A message class of the v1 protocol, built from the descriptor the engine serves."""
    pool = descriptor_pool.Default()
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"grpc.reflection.v1.{name}"))


def ask(target: str, service: str, **request: Any) -> Any:
    """One reflection request over `service`, with the v1 messages, and its answer."""
    request_type, response_type = (
        _v1_message("ServerReflectionRequest"),
        _v1_message("ServerReflectionResponse"),
    )
    with grpc.insecure_channel(target) as channel:
        call = channel.stream_stream(
            f"/{service}/ServerReflectionInfo",
            request_serializer=request_type.SerializeToString,
            response_deserializer=response_type.FromString,
        )
        (answer,) = list(call(iter([request_type(**request)]), timeout=30))
    return answer


def files_of(answer: Any) -> dict[str, descriptor_pb2.FileDescriptorProto]:
    files = [
        descriptor_pb2.FileDescriptorProto.FromString(data)
        for data in answer.file_descriptor_response.file_descriptor_proto
    ]
    return {file.name: file for file in files}


@pytest.mark.parametrize("service", [V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME])
def test_both_versions_list_every_service(engine: EngineThread, service: str) -> None:
    answer = ask(engine.target, service, list_services="")
    names = {entry.name for entry in answer.list_services_response.service}
    assert names == {ENGINE, "grpc.health.v1.Health", V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME}


def test_v1_describes_the_engine(engine: EngineThread) -> None:
    files = files_of(ask(engine.target, V1_SERVICE_NAME, file_containing_symbol=ENGINE))
    engine_file = files["solitaire/v1/engine.proto"]
    (service,) = engine_file.service
    assert service.name == "EngineService"
    assert {method.name: method.output_type for method in service.method}["NewGame"] == (
        ".solitaire.v1.NewGameResponse"
    )


def test_v1_describes_the_error_details_and_itself(engine: EngineThread) -> None:
    # A generic client decodes grpc-status-details-bin with these.
    files = files_of(
        ask(engine.target, V1_SERVICE_NAME, file_containing_symbol="google.rpc.ErrorInfo")
    )
    assert "google/rpc/error_details.proto" in files
    files = files_of(ask(engine.target, V1_SERVICE_NAME, file_containing_symbol=V1_SERVICE_NAME))
    reflection_file = files[V1_FILE_NAME]
    assert reflection_file.package == "grpc.reflection.v1"
    (method,) = reflection_file.service[0].method
    assert method.input_type == ".grpc.reflection.v1.ServerReflectionRequest"
