# jaxrewrite: enable
import dataclasses

from mypackage.models import BaseModel
from jaxrewrite import Static


class Model(BaseModel):
    tag: Static[str] = dataclasses.field(default="m")
