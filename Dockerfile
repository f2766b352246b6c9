# skg-monitor worker / CLI image.
#
#   docker build -t skg-monitor:local .
#   docker build --build-arg TORCH_INDEX_URL=https://my-mirror.example/whl/cpu -t skg-monitor:local .
#
# torch is installed first, alone, from a CPU-only wheel index: otherwise `pip install .`
# would resolve torch from PyPI and pull the multi-GB CUDA build. TORCH_INDEX_URL defaults
# to the public PyTorch CPU index; point it at a mirror or a local wheel index as needed.
# PIP_INDEX_URL (optional) does the same for every other package.
FROM python:3.11-slim

ARG TORCH_VERSION=2.13.0
ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ARG PIP_INDEX_URL

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
# Faust / RocksDB table state (StreamSettings.data_dir); writable by the runtime user.
ENV SKG_DATA_DIR=/app/data

RUN pip install --index-url "${TORCH_INDEX_URL}" "torch==${TORCH_VERSION}"

COPY . /app
RUN pip install . \
    && python -c "import torch; assert torch.__version__.split('+')[0] == '${TORCH_VERSION}', torch.__version__" \
    && useradd --create-home --uid 10001 skg \
    && mkdir -p /app/data \
    && chown -R skg /app/data

USER skg

# Faust web server (/metrics and HTTP views)
EXPOSE 6066

ENTRYPOINT ["skg-monitor"]
CMD ["--help"]
