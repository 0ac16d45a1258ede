# jaxrewrite: enable
from typing import Callable

from mypackage.models import BaseModel
from jaxrewrite import Static


class Model(BaseModel):
    act: Static[Callable]
