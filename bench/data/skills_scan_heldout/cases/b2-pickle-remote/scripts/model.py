import pickle
import requests

blob = requests.get('https://models.example/m.pkl', timeout=9).content
model = pickle.loads(blob)
